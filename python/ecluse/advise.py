"""`ecluse predict` / `ecluse advise`: every candidate approach, the least-energy and the fastest,
one line saying why, and the `<architecture>` fragment of the recommendation."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from .model import (MIB, AppModel, ModelOptions, Platform, Prediction, Workload, buffer_bytes_for,
                    candidate_approaches, predict)


@dataclass(frozen=True)
class Advice:
    """Predictions of every candidate, the least-energy one and the fastest one."""

    predictions: tuple
    least_energy: Prediction
    fastest: Prediction
    why: str
    uncertainty: Optional[float] = None   # relative, of every predicted time (see uncertainty)

    def pick(self, goal: str = "energy") -> Prediction:
        """The recommendation: the fastest for goal "time", else the least energy."""
        return self.fastest if goal == "time" else self.least_energy

    def saving(self) -> Optional[tuple]:
        """(the next one's label, the least-energy pick's relative saving over it, the
        uncertainty band or None); None when there is no other candidate."""
        best, other = self.least_energy, _runner_up(self.least_energy, self.predictions)
        if other is None or not other.energy_j:
            return None
        saving = (other.energy_j - best.energy_j) / other.energy_j
        # Both predictions may be off, in opposite directions: twice the uncertainty.
        band = 2 * self.uncertainty if self.uncertainty is not None else None
        return other.label, saving, band

    def saving_text(self) -> str:
        """The least-energy pick's saving over the next one, with its uncertainty band."""
        best, found = self.least_energy, self.saving()
        if found is None:
            return f"{best.label} is the only candidate"
        other, saving, band = found
        head = f"{best.label} uses {saving:.1%} less energy than {other}"
        if band is None:
            return head + (" (uncertainty unknown: profile with --repeats 3 to measure the "
                           "run-to-run spread)")
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
                  + (f" although it runs {_percent(best.time_s / other.time_s - 1)} longer"
                     if best.time_s > other.time_s * 1.001 else ""))
    return f"{best.label} uses {saving:.1f}% less energy than {other.label}: {reason}"


def _percent(fraction: float) -> str:
    """A share as a percentage: one decimal under 10% (never "0%" for a difference shown)."""
    return f"{fraction:.1%}" if fraction < 0.1 else f"{fraction:.0%}"


def _time_reason(best: Prediction, other: Prediction) -> str:
    if other.blocked_s > 0 and other.blocked_s >= 0.5 * (other.time_s - best.time_s):
        return (f"{other.label}'s dedicated resources cannot keep up with the output "
                f"({other.blocked_s:.3g} s blocked)")
    if other.approach.kind == "tp" and other.io_s > 0:
        hidden = other.io_s - best.blocked_s
        if hidden >= 0.5 * other.io_s:
            return f"{best.label} hides the I/O that {other.label} waits for ({other.io_s:.3g} s)"
        # Blocked for most of that I/O itself: the saving is mostly power.
        return (f"{best.label} hides only {max(hidden, 0.0):.3g} s of the {other.io_s:.3g} s "
                f"of I/O that {other.label} waits for (its dedicated resources keep it blocked "
                f"{best.blocked_s:.3g} s); the rest is power ({best.power_w:.0f} W vs "
                f"{other.power_w:.0f} W per node)")
    return (f"it computes faster ({best.time_s:.3g} s vs {other.time_s:.3g} s) on the cores and "
            "nodes it keeps for the simulation")


def energy_unit(values: Sequence[float]) -> tuple:
    """kJ for machine-scale runs, J for the short runs of this machine: (name, divisor)."""
    return ("kJ", 1e3) if max(values, default=0.0) >= 1e4 else ("J", 1.0)


def energy_text(joules: float, unit: Optional[tuple] = None) -> str:
    """Joules in `unit` (energy_unit's (name, divisor): that of a table or a line the figure
    shares), else in the unit of the figure alone."""
    name, div = unit or energy_unit([joules])
    return f"{joules / div:.3f} {name}"


def buffer_bytes(p: Prediction, platform: Platform, workload: Workload) -> int:
    """Buffer per node (DC: the node's share of an output; DN: a dedicated node's share of its
    clients' output; TP: a node's share), holding two outputs with the allocator's bookkeeping
    (`model.buffer_bytes_for`)."""
    share = workload.bytes_per_output / max(1, platform.nodes)
    if p.approach.kind == "dn":
        share = workload.bytes_per_output / p.approach.dedicated_nodes
    return buffer_bytes_for(share)


def architecture_xml(p: Prediction, platform: Platform, workload: Workload,
                     domains: int = 1) -> str:
    """The complete `<architecture>` block to paste over the one of the simulation's file:
    its `domains` (blocks per client: the simulation's own count, which the block must keep),
    dedicated resources, the buffer sized from the bytes per output, and `<virtual-nodes>` when
    the nodes are groups of ranks on one host."""
    size = buffer_bytes(p, platform, workload) // MIB
    lines = ["<architecture>", f'  <domains count="{domains}"/>', f"  {p.approach.xml()}",
             f'  <buffer name="ecluse-buffer" size="{size}MiB"/>']
    if platform.host_cpus and platform.nodes > 1:
        lines.append(f'  <virtual-nodes ranks-per-node="{platform.cores_per_node}"/>')
    return "\n".join(lines + ["</architecture>"])


ADVICE_SCHEMA = "ecluse-advice/1"


def prediction_json(p: Prediction) -> dict:
    return {"approach": p.label, "kind": p.approach.kind,
            "dedicated_cores": p.approach.dedicated_cores,
            "dedicated_nodes": p.approach.dedicated_nodes, "time_s": p.time_s,
            "compute_s": p.compute_s, "io_s": p.io_s, "blocked_s": p.blocked_s,
            "power_w": p.power_w, "energy_j": p.energy_j, "notes": list(p.notes)}


def to_json(advice: Advice, platform: Platform, workload: Workload, goal: str = "energy",
            domains: int = 1) -> dict:
    """What `ecluse advise` prints, as one document (schema ecluse-advice/1): every candidate's
    prediction, the least-energy and the fastest, why, the saving with its band, and the
    recommendation for `goal` with its `<architecture>` block (of `domains` blocks per
    client)."""
    pick = advice.pick(goal)
    found = advice.saving()
    saving = None
    if found is not None:
        other, relative, band = found
        saving = {"over": other, "relative": relative, "band": band,
                  "beyond_uncertainty": None if band is None else relative > band}
    return {"schema": ADVICE_SCHEMA,
            "platform": {"nodes": platform.nodes, "cores_per_node": platform.cores_per_node,
                         "host_cpus": platform.host_cpus},
            "workload": {"iterations": workload.iterations,
                         "output_every": workload.output_every,
                         "outputs": workload.outputs,
                         "bytes_per_output": workload.bytes_per_output},
            "predictions": [prediction_json(p) for p in advice.predictions],
            "least_energy": advice.least_energy.label, "fastest": advice.fastest.label,
            "why": advice.why, "uncertainty": advice.uncertainty, "saving": saving,
            "goal": goal,
            "recommendation": {"approach": pick.label, "dedicated": pick.approach.xml(),
                               "domains": domains,
                               "architecture": architecture_xml(pick, platform, workload,
                                                                domains)}}


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
