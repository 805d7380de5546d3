"""`ecluse predict` / `ecluse advise`: every candidate approach, the least-energy and the fastest,
one line saying why, and the `<architecture>` fragment of the recommendation."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence

from .model import (AppModel, ModelOptions, Platform, Prediction, Workload, candidate_approaches,
                    predict)


@dataclass(frozen=True)
class Advice:
    """Predictions of every candidate, the least-energy one and the fastest one."""

    predictions: tuple
    least_energy: Prediction
    fastest: Prediction
    why: str
    uncertainty: Optional[float] = None   # relative, of every predicted time (see uncertainty)

    def saving_text(self) -> str:
        """The least-energy pick's saving over the next one, with its uncertainty band."""
        best, other = self.least_energy, _runner_up(self.least_energy, self.predictions)
        if other is None or not other.energy_j:
            return f"{best.label} is the only candidate"
        saving = (other.energy_j - best.energy_j) / other.energy_j
        head = f"{best.label} uses {saving:.1%} less energy than {other.label}"
        if self.uncertainty is None:
            return head + (" (uncertainty unknown: profile with --repeats 3 to measure the "
                           "run-to-run spread)")
        band = 2 * self.uncertainty   # both predictions may be off, in opposite directions
        verdict = ("within the uncertainty: the model cannot tell them apart" if saving <= band
                   else "beyond the uncertainty")
        return f"{head} ± {band:.1%} ({verdict})"


def predict_all(app: AppModel, platform: Platform, workload: Workload, options: ModelOptions,
                approaches: Sequence = None, max_dedicated_cores: int = 2) -> list:
    """Predictions for `approaches` (default: the candidates the platform allows; without the
    tp_io switch TP is left out, as in the paper, since its I/O time would be missing)."""
    if approaches is None:
        approaches = candidate_approaches(platform, max_dedicated_cores)
        if not options.tp_io:
            approaches = [a for a in approaches if a.kind != "tp"]
    return [predict(app, platform, workload, a, options) for a in approaches]


def uncertainty(app: AppModel) -> Optional[float]:
    """Relative uncertainty of a predicted time: the larger of the profile's run-to-run spread
    (its repeats) and the scalability fit's cross-validated error; None when neither is known."""
    known = [v for v in (app.noise, app.s_cores.residual) if v is not None]
    return max(known) if known else None


def advise(predictions: Sequence[Prediction], uncertainty: Optional[float] = None) -> Advice:
    """Least energy first (ties: shorter time), fastest (ties: less energy), and why."""
    # Rounded so that two approaches equal but for float noise tie and the other criterion decides.
    least = min(predictions, key=lambda p: (round(p.energy_j, 6), p.time_s))
    fastest = min(predictions, key=lambda p: (round(p.time_s, 9), p.energy_j))
    return Advice(tuple(predictions), least, fastest, explain(least, predictions), uncertainty)


def _runner_up(best: Prediction, predictions: Sequence[Prediction]):
    others = [p for p in predictions if p is not best]
    return min(others, key=lambda p: p.energy_j) if others else None


def explain(best: Prediction, predictions: Sequence[Prediction]) -> str:
    """One line: what makes `best` cheaper than the next one (time or power), and blocking."""
    other = _runner_up(best, predictions)
    if other is None:
        return f"{best.label} is the only candidate"
    saving = (other.energy_j - best.energy_j) / other.energy_j * 100 if other.energy_j else 0.0
    if saving < 0.05:
        return (f"{best.label} and {other.label} tie on energy ({energy_text(best.energy_j)}): "
                "the model cannot tell them apart here")
    if best.time_s < other.time_s * 0.999:
        reason = _time_reason(best, other)
    else:
        reason = (f"it draws less power ({best.power_w:.0f} W vs {other.power_w:.0f} W per node)"
                  + (f" although it runs {best.time_s / other.time_s - 1:.0%} longer"
                     if best.time_s > other.time_s * 1.001 else ""))
    return f"{best.label} uses {saving:.1f}% less energy than {other.label}: {reason}"


def _time_reason(best: Prediction, other: Prediction) -> str:
    if other.blocked_s > 0 and other.blocked_s >= 0.5 * (other.time_s - best.time_s):
        return (f"{other.label}'s dedicated resources cannot keep up with the output "
                f"({other.blocked_s:.3g} s blocked)")
    if other.approach.kind == "tp" and other.io_s > 0:
        return f"{best.label} hides the I/O that {other.label} waits for ({other.io_s:.3g} s)"
    return (f"it computes faster ({best.time_s:.3g} s vs {other.time_s:.3g} s) on the cores and "
            "nodes it keeps for the simulation")


def energy_unit(values: Sequence[float]) -> tuple:
    """kJ for machine-scale runs, J for the short runs of this machine: (name, divisor)."""
    return ("kJ", 1e3) if max(values, default=0.0) >= 1e4 else ("J", 1.0)


def energy_text(joules: float) -> str:
    name, div = energy_unit([joules])
    return f"{joules / div:.3f} {name}"


BUFFER_HEADROOM = 2.0   # outputs the buffer holds: one being stored, the next being handed over
MIB = 2 ** 20


def buffer_bytes(p: Prediction, platform: Platform, workload: Workload) -> int:
    """Buffer per node (DC: the node's share of an output; DN: a dedicated node's share of its
    clients' output; TP: a node's share) with headroom, rounded up to whole MiB, 1 MiB at least."""
    share = workload.bytes_per_output / max(1, platform.nodes)
    if p.approach.kind == "dn":
        share = workload.bytes_per_output / p.approach.dedicated_nodes
    return max(1, math.ceil(share * BUFFER_HEADROOM / MIB)) * MIB


def architecture_xml(p: Prediction, platform: Platform, workload: Workload) -> str:
    """The complete `<architecture>` block to paste over the one of the simulation's file:
    dedicated resources, the buffer sized from the bytes per output, and `<virtual-nodes>` when
    the nodes are groups of ranks on one host."""
    size = buffer_bytes(p, platform, workload) // MIB
    lines = ["<architecture>", '  <domains count="1"/>', f"  {p.approach.xml()}",
             f'  <buffer name="ecluse-buffer" size="{size}MiB"/>']
    if platform.host_cpus and platform.nodes > 1:
        lines.append(f'  <virtual-nodes ranks-per-node="{platform.cores_per_node}"/>')
    return "\n".join(lines + ["</architecture>"])


def format_table(advice: Advice, platform: Platform) -> str:
    """The predictions as an aligned table, the least-energy and the fastest marked."""
    unit, div = energy_unit([p.energy_j for p in advice.predictions])
    lines = [f"{'approach':<12}{'time s':>12}{'compute s':>12}{'I/O s':>10}{'blocked s':>11}"
             f"{'power W':>10}{'energy ' + unit:>12}  mark"]
    for p in advice.predictions:
        marks = []
        if p is advice.least_energy:
            marks.append("least-energy")
        if p is advice.fastest:
            marks.append("fastest")
        lines.append(f"{p.label:<12}{p.time_s:>12.3f}{p.compute_s:>12.3f}{p.io_s:>10.3f}"
                     f"{p.blocked_s:>11.3f}{p.power_w:>10.1f}{p.energy_j / div:>12.3f}  "
                     + ",".join(marks))
    return "\n".join(lines)
