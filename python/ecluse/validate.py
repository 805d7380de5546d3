"""`ecluse validate`: run reports (schema ecluse-report/1, docs/report.md) against the model's
predictions from a profile: relative errors, whether the advisor picked the measured best, plots."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from typing import Optional, Sequence

from .advise import energy_unit
from .model import AppModel, Approach, ModelOptions, Platform, Prediction, Workload, predict
from .power import Power

REPORT_SCHEMA = "ecluse-report/1"


@dataclass(frozen=True)
class Measured:
    """What one run report says, reduced to what the model predicts."""

    path: str
    approach: Approach
    nodes: int
    cores_per_node: int
    hosts: int
    workload: Workload
    time_s: float
    energy_j: Optional[float]
    energy_label: str
    idle_fraction: Optional[float]  # dedicated resources' idle phase / wall time

    def label(self) -> str:
        return self.approach.label(self.nodes)


def _workload(report: dict, iterations: Optional[int], output_every: Optional[int]) -> Workload:
    """Output iterations are those that handed bytes over; without overrides the run is taken
    to end on its last output and the interval is the (first) gap between outputs."""
    outs = sorted((int(i["iteration"]), int(i.get("bytes", 0))) for i in report.get("iterations", [])
                  if int(i.get("bytes", 0)) > 0)
    every = output_every
    if every is None:
        every = outs[1][0] - outs[0][0] if len(outs) >= 2 else (outs[0][0] + 1 if outs else 0)
    n_iter = iterations if iterations is not None else (outs[-1][0] + 1 if outs else 0)
    if n_iter <= 0:
        raise ValueError("the report lists no output iteration: give --iterations")
    per_output = sum(b for _, b in outs) / len(outs) if outs else 0.0
    return Workload(n_iter, every, per_output)


def _approach(report: dict) -> Approach:
    arch = report.get("architecture", {})
    kind = report.get("approach", "tp")
    if kind == "dc":
        return Approach("dc", dedicated_cores=int(arch.get("dedicated_cores", 1)))
    if kind == "dn":
        return Approach("dn", dedicated_nodes=int(arch.get("dedicated_nodes", 1)))
    return Approach("tp")


def _idle_fraction(report: dict) -> Optional[float]:
    for role in ("dedicated-core", "dedicated-node"):
        r = report.get("roles", {}).get(role)
        if r and r.get("wall_s"):
            idle = r.get("phases", {}).get("idle", {}).get("wall_s")
            if idle is not None:
                return min(1.0, float(idle) / float(r["wall_s"]))
    return None


def _energy(report: dict) -> tuple:
    e = report.get("energy") or {}
    if e.get("joules") is None:
        return None, "no energy in report"
    label = f"{e.get('source', '?')}/{e.get('quality', '?')}"
    if e.get("calibration"):
        label += f"/{e['calibration']}"
    return float(e["joules"]), label


def read_report(path: str, iterations: Optional[int] = None,
                output_every: Optional[int] = None) -> Measured:
    """Reads one run report; raises ValueError naming the file when it is not one."""
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    if report.get("schema") != REPORT_SCHEMA:
        raise ValueError(f"{path}: schema is {report.get('schema')!r}, expected '{REPORT_SCHEMA}'")
    arch = report.get("architecture", {})
    nodes = int(report["nodes"])
    per_node = int(arch.get("ranks_per_node") or max(1, int(report["ranks"]) // nodes))
    joules, label = _energy(report)
    return Measured(path, _approach(report), nodes, per_node, int(report.get("hosts", nodes)),
                    _workload(report, iterations, output_every), float(report["completion_time_s"]),
                    joules, label, _idle_fraction(report))


def platform_for(m: Measured, power: Power, host_cpus: Optional[int]) -> Platform:
    """The machine the report ran on; virtual nodes (fewer hosts than nodes) share one host."""
    cpus = host_cpus if m.hosts == 1 else None
    return Platform(m.nodes, m.cores_per_node, power.idle_watts, power.max_watts, power.id, cpus)


@dataclass(frozen=True)
class Comparison:
    measured: Measured
    predicted: Prediction

    @property
    def time_error(self) -> float:
        return (self.predicted.time_s - self.measured.time_s) / self.measured.time_s

    @property
    def energy_error(self) -> Optional[float]:
        if not self.measured.energy_j:
            return None
        return (self.predicted.energy_j - self.measured.energy_j) / self.measured.energy_j


def compare(reports: Sequence[Measured], app: AppModel, power: Power, options: ModelOptions,
            host_cpus: Optional[int], measured_idle: bool = False) -> list:
    """One comparison per report; `measured_idle` feeds each report's idle fraction back."""
    out = []
    for m in reports:
        opts = options
        if measured_idle and m.idle_fraction is not None:
            opts = replace(options, idle_fraction=m.idle_fraction)
        p = predict(app, platform_for(m, power, host_cpus), m.workload, m.approach, opts)
        out.append(Comparison(m, p))
    return out


def _mean_by_label(comparisons, value) -> dict:
    groups = {}
    for c in comparisons:
        v = value(c)
        if v is not None:
            groups.setdefault(c.measured.label(), []).append(v)
    return {k: sum(v) / len(v) for k, v in groups.items()}


def best_choices(comparisons: Sequence[Comparison]) -> dict:
    """Predicted and measured best per criterion (repeats of a configuration averaged; a tie
    on the criterion goes to the other one, as in `advise`)."""
    pt = _mean_by_label(comparisons, lambda c: c.predicted.time_s)
    pe = _mean_by_label(comparisons, lambda c: c.predicted.energy_j)
    mt = _mean_by_label(comparisons, lambda c: c.measured.time_s)
    me = _mean_by_label(comparisons, lambda c: c.measured.energy_j)
    result = {}
    if len(pt) < 2:
        return result
    if me:
        result["least energy"] = (min(pe, key=lambda k: (round(pe[k], 9), pt[k])),
                                  min(me, key=lambda k: (me[k], mt[k])))
    result["fastest"] = (min(pt, key=lambda k: (round(pt[k], 9), pe[k])),
                         min(mt, key=lambda k: (mt[k], me.get(k, 0.0))))
    return result


def format_comparisons(comparisons: Sequence[Comparison]) -> str:
    unit, div = energy_unit([c.predicted.energy_j for c in comparisons]
                            + [c.measured.energy_j or 0.0 for c in comparisons])
    lines = [f"{'configuration':<14}{'report':<24}{'time meas s':>12}{'time pred s':>12}"
             f"{'time err':>10}{'energy meas ' + unit:>16}{'energy pred ' + unit:>16}"
             f"{'energy err':>12}"]
    for c in comparisons:
        m, p = c.measured, c.predicted
        e_meas = f"{m.energy_j / div:.3f}" if m.energy_j else "-"
        e_err = f"{c.energy_error:+.1%}" if c.energy_error is not None else "-"
        lines.append(f"{m.label():<14}{os.path.basename(m.path)[:23]:<24}{m.time_s:>12.3f}"
                     f"{p.time_s:>12.3f}{c.time_error:>+10.1%}{e_meas:>16}"
                     f"{p.energy_j / div:>16.3f}{e_err:>12}")
    return "\n".join(lines)


def format_choices(choices: dict) -> list:
    return [f"{name}: predicted {pred}, measured {meas}: {'right' if pred == meas else 'WRONG'}"
            for name, (pred, meas) in choices.items()]


def summary_line(comparisons: Sequence[Comparison]) -> str:
    t = [abs(c.time_error) for c in comparisons]
    e = [abs(c.energy_error) for c in comparisons if c.energy_error is not None]
    text = f"time error: worst {max(t):.1%}, mean {sum(t) / len(t):.1%}"
    if e:
        text += f"; energy error: worst {max(e):.1%}, mean {sum(e) / len(e):.1%}"
    return text


# ---------------------------------------------------------------------------------------------
# Plots


_COLORS = {"tp": "tab:red", "dc": "tab:blue", "dn": "tab:green"}


def write_plots(comparisons: Sequence[Comparison], directory: str) -> list:
    """energy_vs_time.png (like seed 002 Fig. 2) and predicted_vs_measured.png; returns paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(directory, exist_ok=True)
    paths = [_plot_energy_time(plt, comparisons, directory),
             _plot_pred_meas(plt, comparisons, directory)]
    plt.close("all")
    return paths


def _plot_unit(comparisons) -> tuple:
    return energy_unit([c.predicted.energy_j for c in comparisons])


def _plot_energy_time(plt, comparisons, directory) -> str:
    unit, div = _plot_unit(comparisons)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for c in comparisons:
        color = _COLORS[c.measured.approach.kind]
        if c.measured.energy_j:
            ax.scatter(c.measured.time_s, c.measured.energy_j / div, color=color, marker="o")
            ax.annotate(c.measured.label(), (c.measured.time_s, c.measured.energy_j / div),
                        fontsize=8, xytext=(4, 4), textcoords="offset points")
        ax.scatter(c.predicted.time_s, c.predicted.energy_j / div, facecolors="none",
                   edgecolors=color, marker="s")
    kinds = sorted({c.measured.approach.kind for c in comparisons})
    ax.legend(handles=[plt.Line2D([], [], color=_COLORS[k], marker="o", linestyle="",
                                  label=k.upper()) for k in kinds], fontsize=8)
    ax.set_xlabel("completion time (s)")
    ax.set_ylabel(f"energy ({unit})")
    ax.set_title("Energy vs completion time (filled: measured, hollow: predicted)")
    path = os.path.join(directory, "energy_vs_time.png")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return path


def _plot_pred_meas(plt, comparisons, directory) -> str:
    unit, div = _plot_unit(comparisons)
    fig, axes = plt.subplots(1, 2, figsize=(9, 4))
    pairs = [("time (s)", [(c.measured.time_s, c.predicted.time_s, c) for c in comparisons]),
             (f"energy ({unit})", [(c.measured.energy_j / div, c.predicted.energy_j / div, c)
                              for c in comparisons if c.measured.energy_j])]
    for ax, (name, points) in zip(axes, pairs):
        for meas, pred, c in points:
            ax.scatter(meas, pred, color=_COLORS[c.measured.approach.kind])
            ax.annotate(c.measured.label(), (meas, pred), fontsize=8, xytext=(4, 4),
                        textcoords="offset points")
        top = max([max(m, p) for m, p, _ in points] or [1.0]) * 1.1
        ax.plot([0, top], [0, top], color="gray", linestyle="--", linewidth=1)
        ax.set_xlabel(f"measured {name}")
        ax.set_ylabel(f"predicted {name}")
    fig.suptitle("Predicted vs measured")
    path = os.path.join(directory, "predicted_vs_measured.png")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return path
