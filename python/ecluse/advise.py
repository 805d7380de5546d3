"""`ecluse predict` / `ecluse advise`: every candidate approach, the least-energy and the fastest,
one line saying why, and the `<architecture>` fragment of the recommendation."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .model import (AppModel, ModelOptions, Platform, Prediction, Workload, candidate_approaches,
                    predict)


@dataclass(frozen=True)
class Advice:
    """Predictions of every candidate, the least-energy one and the fastest one."""

    predictions: tuple
    least_energy: Prediction
    fastest: Prediction
    why: str


def predict_all(app: AppModel, platform: Platform, workload: Workload, options: ModelOptions,
                approaches: Sequence = None, max_dedicated_cores: int = 2) -> list:
    """Predictions for `approaches` (default: the candidates the platform allows; without the
    tp_io switch TP is left out, as in the paper, since its I/O time would be missing)."""
    if approaches is None:
        approaches = candidate_approaches(platform, max_dedicated_cores)
        if not options.tp_io:
            approaches = [a for a in approaches if a.kind != "tp"]
    return [predict(app, platform, workload, a, options) for a in approaches]


def advise(predictions: Sequence[Prediction]) -> Advice:
    """Least energy first (ties: shorter time), fastest (ties: less energy), and why."""
    # Rounded so that two approaches equal but for float noise tie and the other criterion decides.
    least = min(predictions, key=lambda p: (round(p.energy_j, 6), p.time_s))
    fastest = min(predictions, key=lambda p: (round(p.time_s, 9), p.energy_j))
    return Advice(tuple(predictions), least, fastest, explain(least, predictions))


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


def architecture_xml(p: Prediction) -> str:
    """The `<architecture>` fragment to paste into the simulation's configuration."""
    return f"<architecture>\n  {p.approach.xml()}\n</architecture>"


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
