"""`ecluse validate`: run reports (schema ecluse-report/2, docs/report.md) against the model's
predictions from a profile: relative errors, whether the advisor picked the measured best, plots."""
from __future__ import annotations

import math
import os
import statistics
from dataclasses import dataclass, replace
from typing import Optional, Sequence

from .advise import energy_unit
from .model import (AppModel, Approach, Bandwidth, ModelOptions, Platform, Prediction,
                    Workload, predict)
from .power import Power
from .report import Report
from .report import load as load_report


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
    config: str = ""                # the configuration file the run read (the report's)
    compute_s: Optional[float] = None  # the clients' compute phase, per client (the report's)
    store_s_per_output: Optional[float] = None  # slowest store rank's (TP: client's write)
    copy_bytes_per_s: Optional[float] = None    # one client's hand-over (DC/DN)
    other_cpu_s: float = 0.0  # other processes' CPU time on hosts the report flags (other_load)

    def key(self) -> str:
        """What names the run in a table: its report's path as given, and its configuration
        (two runs whose reports share a file name stay apart)."""
        return f"{self.path} [{self.config}]" if self.config else self.path

    def label(self) -> str:
        return self.approach.label(self.nodes)

    def platform_text(self) -> str:
        """nodes x cores per node (virtual nodes on one host count as nodes)."""
        return f"{self.nodes}x{self.cores_per_node}"

    def scenario(self) -> tuple:
        """What the runs compared with each other must share: iterations and output interval
        (bytes per output differ slightly between decompositions: ghost cells)."""
        return (self.workload.iterations, self.workload.output_every)


def _refuse_incomplete(report: Report) -> None:
    """ValueError for a partial report (docs/report.md, "After a failure"): its figures are
    those of a run that broke, not of the approach."""
    if report.data.get("complete") is not False:
        return
    failures = report.data.get("failures") or [{}]
    cause = failures[0].get("cause") if isinstance(failures[0], dict) else None
    raise ValueError(f"{report.path}: the run did not complete ('complete': false"
                     + (f"; first failure: {cause}" if cause else "") + "): the model needs the "
                     "report of a run that ended normally; run it again")


def _workload(report: Report, iterations: Optional[int], output_every: Optional[int],
              fix: str = "give --iterations") -> Workload:
    """Output iterations are those that handed bytes over (bytes per output: their mean), as
    many as the report counts, at the report's output interval (`output_every` given: as many
    as it makes in the iterations). The run's iterations are those the clients ended, with or
    without output, so iterations computed after the last output count too. `fix`: what the
    error of a report without iterations tells the user to do."""
    _refuse_incomplete(report)
    n_iter = iterations if iterations is not None else (report.iteration_count() or 0)
    if n_iter <= 0:
        found = report.iteration_count()
        raise ValueError(f"{report.path}: the report lists no iteration (field "
                         f"'iterations.count' is {'missing' if found is None else found}): {fix}")
    per_output = report.bytes_per_output() or 0.0
    if output_every is not None:
        return Workload(n_iter, output_every, per_output)
    count = report.output_count()
    if count > n_iter:
        raise ValueError(f"{report.path}: {count} outputs (field 'iterations.outputs.count') "
                         f"in {n_iter} iterations: give the run's --iterations")
    every = report.output_every() or (max(1, n_iter // count) if count else 0)
    return Workload(n_iter, every, per_output, count)


def _raw(report: Report, name: str):
    """The document's value at the dotted `name` (None when missing)."""
    value = report.data
    for key in name.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _field_error(report: Report, name: str, expected: str) -> ValueError:
    raw = _raw(report, name)
    found = "missing" if raw is None else f"{raw!r}"
    return ValueError(f"{report.path}: field '{name}' is {found}; expected {expected} (a damaged "
                      "report, or not one a run wrote: run the simulation again to rewrite it)")


def _count(report: Report, name: str, least: int = 1, required: bool = True) -> Optional[int]:
    """The whole number at the dotted `name` (typed by Report under its last part), at least
    `least`; None when missing and not `required`; ValueError naming file and field otherwise."""
    value = getattr(report, name.rsplit(".", 1)[-1])
    if value is None and _raw(report, name) is None and not required:
        return None
    if value is None or value < least:
        raise _field_error(report, name, f"a whole number >= {least}")
    return value


def _platform(report: Report) -> tuple:
    """(nodes, cores per node, hosts) of the run: cores per node from
    `architecture.ranks_per_node`, `ranks / nodes` when it is 0 or missing (TP without
    `<virtual-nodes>`); hosts default to the nodes."""
    nodes = _count(report, "nodes")
    per_node = _count(report, "architecture.ranks_per_node", least=0, required=False)
    if not per_node:
        per_node = max(1, _count(report, "ranks") // nodes)
    hosts = _count(report, "hosts", required=False) or nodes
    return nodes, per_node, hosts


def _approach(report: Report) -> Approach:
    """The run's approach; a DC or DN run needs 1 or more dedicated cores or nodes (1 when the
    report does not say)."""
    if report.approach == "dc":
        cores = _count(report, "architecture.dedicated_cores", required=False)
        return Approach("dc", dedicated_cores=_or(cores, 1))
    if report.approach == "dn":
        nodes = _count(report, "architecture.dedicated_nodes", required=False)
        return Approach("dn", dedicated_nodes=_or(nodes, 1))
    return Approach("tp")


def _or(value, default):
    return default if value is None else value


def _energy(report: Report) -> tuple:
    e = report.energy
    if e is None or e.joules is None:
        return None, "no energy in report"
    return e.joules, e.label()


def _compute_per_client(report: Report) -> Optional[float]:
    """The simulation role's compute phase over its ranks, None when the report has none; in
    TP with the clients' time inside Ecluse in the iterations without output, which the model
    counts with the compute (`Report.tp_quiet_s_per_client`)."""
    sim = report.roles.get("simulation")
    compute = _seconds(report, "roles.simulation.phases.compute.wall_s",
                       sim.phase_wall_s("compute") if sim else None)
    if not compute or not sim.ranks:
        return None
    return compute / sim.ranks + report.tp_quiet_s_per_client()


def _seconds(report: Report, name: str, value: Optional[float]) -> Optional[float]:
    """A measured time: None stays None (the reader says what a missing one means); a
    negative, NaN or infinite one is a damaged report."""
    if value is not None and not (math.isfinite(value) and value >= 0):
        raise _field_error(report, name, "a finite number of seconds >= 0")
    return value


def read_report(path: str, iterations: Optional[int] = None,
                output_every: Optional[int] = None) -> Measured:
    """Reads one run report; raises ValueError naming the file when it is not one."""
    report = load_report(path)
    nodes, per_node, hosts = _platform(report)
    joules, label = _energy(report)
    return Measured(path, _approach(report), nodes, per_node, hosts,
                    _workload(report, iterations, output_every),
                    _completion(report), joules, label,
                    report.server_idle_fraction(), str(report.data.get("config") or ""),
                    _compute_per_client(report), _io_seconds(report),
                    report.copy_bytes_per_client_s() if report.approach != "tp" else None,
                    _other_load(report))


def _other_load(report: Report) -> float:
    """Other processes' CPU time on the run's hosts when the report flags any (0 otherwise)."""
    e = report.energy
    if e is None or not e.hosts_with_other_load:
        return 0.0
    return e.other_cpu_s or 0.0


def _io_seconds(report: Report) -> Optional[float]:
    series = "client_write_s" if report.approach == "tp" else "server_store_s"
    return _seconds(report, f"iterations.{series}.slowest_rank_mean", report.io_time_per_output())


def _completion(report: Report) -> float:
    value = report.completion_time_s
    if value is None or not math.isfinite(value) or value <= 0:
        raise _field_error(report, "completion_time_s", "a finite number of seconds > 0")
    return value


def platform_for(m: Measured, power: Power, host_cpus: Optional[int]) -> Platform:
    """The machine the report ran on; virtual nodes (fewer hosts than nodes) share one host."""
    cpus = host_cpus if m.hosts == 1 else None
    return Platform(m.nodes, m.cores_per_node, power.idle_watts, power.max_watts, power.id, cpus)


@dataclass(frozen=True)
class Comparison:
    measured: Measured
    predicted: Prediction
    label: str = ""   # the configuration: approach, and nodes x cores when that is ambiguous
    at_speeds: Optional[Prediction] = None  # the same, at the run's own store and copy speeds

    @property
    def scenario(self) -> tuple:
        return self.measured.scenario()

    @property
    def time_error(self) -> float:
        return (self.predicted.time_s - self.measured.time_s) / self.measured.time_s

    @property
    def energy_error(self) -> Optional[float]:
        if not self.measured.energy_j:
            return None
        return (self.predicted.energy_j - self.measured.energy_j) / self.measured.energy_j

    @property
    def compute_speed(self) -> Optional[float]:
        return compute_ratio(self.measured.compute_s, self.predicted.compute_s)

    @property
    def time_error_at_measured_compute(self) -> Optional[float]:
        return error_at_measured_compute(self.predicted.time_s, self.predicted.compute_s,
                                         self.measured.time_s, self.measured.compute_s)

    @property
    def store_speed(self) -> Optional[float]:
        """The run's store time per output over the model's (above 1: it stored slower)."""
        m, p = self.measured, self.predicted
        outputs = m.workload.outputs
        if not m.store_s_per_output or not outputs or p.io_s <= 0:
            return None
        return m.store_s_per_output / (p.io_s / outputs)

    @property
    def time_error_at_measured_speeds(self) -> Optional[float]:
        if self.at_speeds is None:
            return None
        return error_at_measured_compute(self.at_speeds.time_s, self.at_speeds.compute_s,
                                         self.measured.time_s, self.measured.compute_s)


def at_measured_speeds(app: AppModel, m: Measured) -> Optional[AppModel]:
    """The profile with the run's own store speed (and, in DC/DN, copy speed) in place of the
    measured ones, for the run's approach: what the model predicts once the file system's and
    the memory's speed on the day are known. None when the report lacks them."""
    per_output = m.workload.bytes_per_output
    if not m.store_s_per_output or per_output <= 0:
        return None
    store = per_output / m.store_s_per_output
    copy = m.copy_bytes_per_s
    terms = tuple((key, replace(t, store_bytes_per_s=store, store_writers=1,
                                copy_bytes_per_s=copy or t.copy_bytes_per_s))
                  if key.split("@")[0] == m.approach.kind else (key, t)
                  for key, t in app.terms)
    return replace(app, bandwidth=Bandwidth((1,), (store,)),
                   copy=Bandwidth((1,), (copy,)) if copy else app.copy, terms=terms)


def compute_ratio(measured: Optional[float], predicted: float) -> Optional[float]:
    """The run's compute phase over the model's: above 1, the machine computed slower than when
    it was profiled (same work, same code)."""
    return measured / predicted if measured and predicted > 0 else None


def error_at_measured_compute(time_pred: float, compute_pred: float, time_meas: float,
                              compute_meas: Optional[float]) -> Optional[float]:
    """The time error with the run's own compute phase in place of the model's: what the model
    adds to the computation (I/O, copies, waits, overhead) against what the run spent beside
    it, relative to the run's time. It separates the model's error from the machine's speed on
    the day, which no profile can predict (docs/model.md, "Accuracy")."""
    if not compute_meas:
        return None
    return (time_pred - compute_pred + compute_meas - time_meas) / time_meas


def compare(reports: Sequence[Measured], app: AppModel, power: Power, options: ModelOptions,
            host_cpus: Optional[int], measured_idle: bool = False) -> list:
    """One comparison per report; `measured_idle` feeds each report's idle fraction back."""
    out = []
    for m in reports:
        opts = options
        if measured_idle and m.idle_fraction is not None:
            opts = replace(options, idle_fraction=m.idle_fraction)
        platform = platform_for(m, power, host_cpus)
        p = predict(app, platform, m.workload, m.approach, opts)
        fast = at_measured_speeds(app, m)
        at = predict(fast, platform, m.workload, m.approach, opts) if fast else None
        out.append(Comparison(m, p, at_speeds=at))
    return label_configurations(out)


def label_configurations(comparisons: Sequence[Comparison]) -> list:
    """Names each comparison's configuration: the approach's label (TP, DC(1), DN(1:1)), plus
    ` NxC` (nodes x cores per node) when reports of that approach ran on different platforms
    (TP on 1 and on 2 cores are two configurations, not repeats of one)."""
    platforms = {}
    for c in comparisons:
        platforms.setdefault(c.measured.label(), set()).add(c.measured.platform_text())
    return [replace(c, label=c.measured.label() + (f" {c.measured.platform_text()}"
                                                   if len(platforms[c.measured.label()]) > 1
                                                   else "")) for c in comparisons]


def _name(c: Comparison) -> str:
    return c.label or c.measured.label()


def scenarios(comparisons: Sequence[Comparison]) -> list:
    """The comparisons grouped by scenario (iterations, output interval), in order."""
    groups = {}
    for c in comparisons:
        groups.setdefault(c.scenario, []).append(c)
    return [(k, groups[k]) for k in sorted(groups)]


def scenario_text(scenario: tuple) -> str:
    iterations, every = scenario
    return (f"{iterations} iterations, output every {every}" if every
            else f"{iterations} iterations, no output")


STATISTICS = ("mean", "median")


def combine(values: Sequence[float], statistic: str = "mean") -> float:
    """The repeats of one configuration as one value: their mean (the default), or their median
    (the statistic of the profile's kept run and of the demo's line: a slow outlier of a noisy
    machine does not move it)."""
    if statistic not in STATISTICS:
        raise ValueError(f"unknown statistic '{statistic}': use one of {', '.join(STATISTICS)}")
    return statistics.median(values) if statistic == "median" else sum(values) / len(values)


def _by_label(comparisons, value, statistic: str) -> dict:
    groups = {}
    for c in comparisons:
        v = value(c)
        if v is not None:
            groups.setdefault(_name(c), []).append(v)
    return {k: combine(v, statistic) for k, v in groups.items()}


@dataclass(frozen=True)
class ConfigSummary:
    """One configuration of one scenario, its repeats combined (median or mean)."""

    scenario: tuple
    label: str
    kind: str
    runs: int
    time_meas_s: float
    time_sd_s: float
    time_pred_s: float
    energy_meas_j: Optional[float]
    energy_pred_j: float
    compute_meas_s: Optional[float] = None  # the repeats' compute phases, combined alike
    compute_pred_s: float = 0.0
    time_at_speeds_s: Optional[float] = None     # predictions at the runs' own store speeds
    compute_at_speeds_s: Optional[float] = None
    store_speed: Optional[float] = None          # the runs' store time over the model's

    @property
    def time_error(self) -> float:
        return (self.time_pred_s - self.time_meas_s) / self.time_meas_s

    @property
    def compute_speed(self) -> Optional[float]:
        return compute_ratio(self.compute_meas_s, self.compute_pred_s)

    @property
    def time_error_at_measured_compute(self) -> Optional[float]:
        return error_at_measured_compute(self.time_pred_s, self.compute_pred_s, self.time_meas_s,
                                         self.compute_meas_s)

    @property
    def time_error_at_measured_speeds(self) -> Optional[float]:
        if self.time_at_speeds_s is None or self.compute_at_speeds_s is None:
            return None
        return error_at_measured_compute(self.time_at_speeds_s, self.compute_at_speeds_s,
                                         self.time_meas_s, self.compute_meas_s)

    @property
    def energy_error(self) -> Optional[float]:
        if not self.energy_meas_j:
            return None
        return (self.energy_pred_j - self.energy_meas_j) / self.energy_meas_j


def summarize(comparisons: Sequence[Comparison], statistic: str = "mean") -> list:
    """Per scenario and configuration: the measured time of the repeats combined by `statistic`
    (and its standard deviation over the repeats), the predictions and the measured energies
    combined the same way."""
    out = []
    for scenario, group in scenarios(comparisons):
        by = {}
        for c in group:
            by.setdefault(_name(c), []).append(c)
        for label, cs in by.items():
            t = [c.measured.time_s for c in cs]
            mean = sum(t) / len(t)
            sd = (sum((x - mean) ** 2 for x in t) / (len(t) - 1)) ** 0.5 if len(t) > 1 else 0.0
            e = [c.measured.energy_j for c in cs if c.measured.energy_j]
            computed = [c.measured.compute_s for c in cs]
            at = [c.at_speeds for c in cs]
            stores = [c.store_speed for c in cs]
            out.append(ConfigSummary(
                scenario, label, cs[0].measured.approach.kind, len(cs), combine(t, statistic), sd,
                combine([c.predicted.time_s for c in cs], statistic),
                combine(e, statistic) if e else None,
                combine([c.predicted.energy_j for c in cs], statistic),
                combine(computed, statistic) if all(computed) else None,
                combine([c.predicted.compute_s for c in cs], statistic),
                combine([a.time_s for a in at], statistic) if all(at) else None,
                combine([a.compute_s for a in at], statistic) if all(at) else None,
                combine(stores, statistic) if all(stores) else None))
    return out


def best_choices(comparisons: Sequence[Comparison], statistic: str = "mean") -> dict:
    """Predicted and measured best per criterion (repeats of a configuration combined by
    `statistic`; a tie on the criterion goes to the other one, as in `advise`). Only meaningful
    within one scenario: see `best_choices_by_scenario`."""
    pt = _by_label(comparisons, lambda c: c.predicted.time_s, statistic)
    pe = _by_label(comparisons, lambda c: c.predicted.energy_j, statistic)
    mt = _by_label(comparisons, lambda c: c.measured.time_s, statistic)
    me = _by_label(comparisons, lambda c: c.measured.energy_j, statistic)
    result = {}
    if len(pt) < 2:
        return result
    if me:
        result["least energy"] = (min(pe, key=lambda k: (round(pe[k], 9), pt[k])),
                                  min(me, key=lambda k: (me[k], mt[k])))
    result["fastest"] = (min(pt, key=lambda k: (round(pt[k], 9), pe[k])),
                         min(mt, key=lambda k: (mt[k], me.get(k, 0.0))))
    return result


def best_choices_by_scenario(comparisons: Sequence[Comparison],
                             statistic: str = "mean") -> list:
    """[(scenario, best_choices)]: the advisor's question is asked once per scenario."""
    return [(k, best_choices(group, statistic)) for k, group in scenarios(comparisons)]


def _width(comparisons) -> int:
    return max([14] + [len(_name(c)) + 2 for c in comparisons])


def output_size_note(reports: Sequence[Measured], profile_per_output: Optional[float],
                     factor: float = 4.0) -> Optional[str]:
    """A note when runs write `factor` times more (or less) per output than the profile's
    output runs: their I/O time is then extrapolated as bytes / bandwidth."""
    sizes = [m.workload.bytes_per_output for m in reports
             if m.workload.outputs and m.workload.bytes_per_output]
    if not profile_per_output or not sizes:
        return None
    far = [s for s in sizes if not profile_per_output / factor <= s <= profile_per_output * factor]
    if not far:
        return None
    return (f"note: {len(far)} of the runs write {min(far):.0f} to {max(far):.0f} bytes per "
            f"output, the profile's output runs {profile_per_output:.0f}: their I/O time is "
            "extrapolated as bytes / bandwidth, which a file's fixed cost makes wrong far from "
            "the profiled size; profile at the runs' output size")


def other_load_note(reports: Sequence[Measured]) -> Optional[str]:
    """A note when runs shared their hosts with other processes: their measured energy counts
    that load too, and their times may be slowed by it."""
    loaded = [m for m in reports if m.other_cpu_s > 0]
    if not loaded:
        return None
    return (f"note: {len(loaded)} of the runs shared their host with other processes (up to "
            f"{max(m.other_cpu_s for m in loaded):.1f} CPU-s beyond their own ranks, "
            f"e.g. {loaded[0].path}): their measured energy counts that load too and their times "
            "may be slowed by it; repeat them on a quiet machine")


def format_comparisons(comparisons: Sequence[Comparison]) -> str:
    """One row per report; with several scenarios, a heading line before each."""
    unit, div = energy_unit([c.predicted.energy_j for c in comparisons]
                            + [c.measured.energy_j or 0.0 for c in comparisons])
    w = _width(comparisons)
    r = max([8] + [len(c.measured.key()) + 2 for c in comparisons])
    lines = [f"{'configuration':<{w}}{'report':<{r}}{'time meas s':>12}{_error_header(unit)}"]
    groups = scenarios(comparisons)
    for scenario, group in groups:
        if len(groups) > 1:
            lines.append(f"-- {scenario_text(scenario)}")
        for c in group:
            m, p = c.measured, c.predicted
            lines.append(f"{_name(c):<{w}}{m.key():<{r}}{m.time_s:>12.3f}"
                         + _error_cells(p.time_s, c.time_error, m.energy_j, p.energy_j,
                                        c.energy_error, div))
    return "\n".join(lines)


def _error_header(unit: str) -> str:
    """The columns both tables end with: predicted time, its error, energy and its error."""
    return (f"{'time pred s':>12}{'time err':>10}{'energy meas ' + unit:>16}"
            f"{'energy pred ' + unit:>16}{'energy err':>12}")


def _error_cells(time_pred: float, time_error: float, energy_meas: Optional[float],
                 energy_pred: float, energy_error: Optional[float], div: float) -> str:
    e_meas = f"{energy_meas / div:.3f}" if energy_meas else "-"
    e_err = f"{energy_error:+.1%}" if energy_error is not None else "-"
    return (f"{time_pred:>12.3f}{time_error:>+10.1%}{e_meas:>16}{energy_pred / div:>16.3f}"
            f"{e_err:>12}")


def format_summaries(summaries: Sequence[ConfigSummary]) -> str:
    """The per-configuration table (repeats combined)."""
    unit, div = energy_unit([s.energy_pred_j for s in summaries]
                            + [s.energy_meas_j or 0.0 for s in summaries])
    w = max([14] + [len(s.label) + 2 for s in summaries])
    lines = [f"{'every':>6}  {'configuration':<{w}}{'runs':>5}{'time meas s':>13}{'sd':>8}"
             + _error_header(unit)]
    for s in summaries:
        lines.append(f"{s.scenario[1]:>6}  {s.label:<{w}}{s.runs:>5}{s.time_meas_s:>13.3f}"
                     f"{s.time_sd_s:>8.3f}" + _error_cells(s.time_pred_s, s.time_error,
                                                          s.energy_meas_j, s.energy_pred_j,
                                                          s.energy_error, div))
    return "\n".join(lines)


def format_choices(choices: dict) -> list:
    return [f"{name}: predicted {pred}, measured {meas}: {'right' if pred == meas else 'WRONG'}"
            for name, (pred, meas) in choices.items()]


def format_choices_by_scenario(by_scenario: list) -> list:
    """The choice lines; with several scenarios each is prefixed by its output interval."""
    if len(by_scenario) == 1:
        return format_choices(by_scenario[0][1])
    return [f"every {scenario[1]}: {line}" for scenario, choices in by_scenario
            for line in format_choices(choices)]


def _errors(values, every: bool = False) -> Optional[dict]:
    """Worst and mean |value| over the known values; None when none is known, or, with `every`,
    unless all are (the diagnostics: one row without them says nothing of the whole)."""
    known = [abs(v) for v in values if v is not None]
    if not known or (every and len(known) < len(values)):
        return None
    return {"worst": max(known), "mean": sum(known) / len(known)}


def _worst_mean(name: str, found: dict) -> str:
    return f"{name}: worst {found['worst']:.1%}, mean {found['mean']:.1%}"


def errors_line(rows) -> str:
    """Time and energy errors over the rows: reports, or configurations (repeats combined)."""
    text = _worst_mean("time error", _errors([r.time_error for r in rows]))
    energy = _errors([r.energy_error for r in rows])
    return text + ("; " + _worst_mean("energy error", energy) if energy else "")


def _span(values) -> str:
    return f"{min(values):.2f}-{max(values):.2f}"


def measured_compute_line(rows) -> Optional[str]:
    """The time error at each run's (or configuration's) measured compute phase, and the range
    of the compute phases against the model's; None unless every row has its compute phase."""
    found = _errors([r.time_error_at_measured_compute for r in rows], every=True)
    speeds = [r.compute_speed for r in rows]
    if found is None or None in speeds:
        return None
    return (f"at the runs' measured compute phase ({_span(speeds)} x the model's time: the "
            "machine's speed on the day): " + _worst_mean("time error", found))


def measured_speeds_line(rows) -> Optional[str]:
    """The time error with the runs' compute phase and their store (and copy) speeds in place of
    the profile's: what is left is the model's own structure (overlap, blocking, overhead); None
    unless every row has them."""
    found = _errors([r.time_error_at_measured_speeds for r in rows], every=True)
    if found is None:
        return None
    stores = [r.store_speed for r in rows if r.store_speed is not None]
    store = f"store time {_span(stores)} x the model's, " if stores else ""
    return (f"at the runs' compute phase and store speed ({store}the file system's speed on "
            "the day): " + _worst_mean("time error", found))


# ---------------------------------------------------------------------------------------------
# JSON (`ecluse validate --json`)

SCHEMA = "ecluse-validate/1"


def _diagnostics(row) -> dict:
    return {"compute_speed": row.compute_speed,
            "time_error_at_measured_compute": row.time_error_at_measured_compute,
            "store_speed": row.store_speed,
            "time_error_at_measured_speeds": row.time_error_at_measured_speeds}


def _scenario_json(scenario: tuple) -> dict:
    return {"iterations": scenario[0], "output_every": scenario[1]}


def _report_json(c: Comparison) -> dict:
    m, p = c.measured, c.predicted
    return {"report": m.path, "config": m.config, "configuration": _name(c),
            "scenario": _scenario_json(c.scenario),
            "time_s": {"measured": m.time_s, "predicted": p.time_s, "error": c.time_error},
            "energy_j": {"measured": m.energy_j, "measured_label": m.energy_label,
                         "predicted": p.energy_j, "error": c.energy_error},
            **_diagnostics(c)}


def _summary_json(s: ConfigSummary) -> dict:
    return {"configuration": s.label, "scenario": _scenario_json(s.scenario), "runs": s.runs,
            "time_s": {"measured": s.time_meas_s, "sd": s.time_sd_s, "predicted": s.time_pred_s,
                       "error": s.time_error},
            "energy_j": {"measured": s.energy_meas_j, "predicted": s.energy_pred_j,
                         "error": s.energy_error},
            **_diagnostics(s)}


def _totals(rows) -> dict:
    return {"time_error": _errors([r.time_error for r in rows]),
            "energy_error": _errors([r.energy_error for r in rows]),
            "time_error_at_measured_compute":
                _errors([r.time_error_at_measured_compute for r in rows], every=True),
            "time_error_at_measured_speeds":
                _errors([r.time_error_at_measured_speeds for r in rows], every=True)}


def to_json(comparisons: Sequence[Comparison], statistic: str = "mean") -> dict:
    """What the text of `ecluse validate` says, as one document (schema ecluse-validate/1):
    every report, every configuration (repeats combined by `statistic`), the worst and mean
    errors (null where a row lacks the figure), and the choices per scenario."""
    summaries = summarize(comparisons, statistic)
    choices = [{"scenario": _scenario_json(scenario), "criterion": name, "predicted": pred,
                "measured": meas, "right": pred == meas}
               for scenario, found in best_choices_by_scenario(comparisons, statistic)
               for name, (pred, meas) in found.items()]
    return {"schema": SCHEMA, "repeats": statistic,
            "reports": [_report_json(c) for c in comparisons],
            "configurations": [_summary_json(s) for s in summaries],
            "errors": {"reports": _totals(comparisons), "configurations": _totals(summaries)},
            "choices": choices}


# ---------------------------------------------------------------------------------------------
# Plots


_COLORS = {"tp": "tab:red", "dc": "tab:blue", "dn": "tab:green"}


def write_plots(comparisons: Sequence[Comparison], directory: str,
                statistic: str = "mean") -> list:
    """energy_vs_time.png (like seed 002 Fig. 2; one panel per scenario) and
    predicted_vs_measured.png (one point per configuration, repeats combined by `statistic`);
    returns paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(directory, exist_ok=True)
    paths = [_plot_energy_time(plt, comparisons, directory),
             _plot_pred_meas(plt, summarize(comparisons, statistic), directory, statistic)]
    plt.close("all")
    return paths


def _plot_energy_time(plt, comparisons, directory) -> str:
    unit, div = energy_unit([c.predicted.energy_j for c in comparisons])
    groups = scenarios(comparisons)
    fig, axes = plt.subplots(1, len(groups), figsize=(6 * len(groups), 4.5), squeeze=False)
    for ax, (scenario, group) in zip(axes[0], groups):
        for c in group:
            color = _COLORS[c.measured.approach.kind]
            if c.measured.energy_j:
                ax.scatter(c.measured.time_s, c.measured.energy_j / div, color=color, marker="o",
                           alpha=0.6)
            ax.scatter(c.predicted.time_s, c.predicted.energy_j / div, facecolors="none",
                       edgecolors=color, marker="s", s=60)
        for s in summarize(group):
            if s.energy_meas_j:
                ax.annotate(s.label, (s.time_meas_s, s.energy_meas_j / div), fontsize=8,
                            xytext=(4, 4), textcoords="offset points")
        kinds = sorted({c.measured.approach.kind for c in group})
        ax.legend(handles=[plt.Line2D([], [], color=_COLORS[k], marker="o", linestyle="",
                                      label=k.upper()) for k in kinds], fontsize=8)
        ax.set_xlabel("completion time (s)")
        ax.set_ylabel(f"energy ({unit})")
        title = "Energy vs completion time (filled: measured, hollow: predicted)"
        ax.set_title(title if len(groups) == 1 else scenario_text(scenario), fontsize=10)
    if len(groups) > 1:
        fig.suptitle("Energy vs completion time (filled: measured runs, hollow: predicted)")
    path = os.path.join(directory, "energy_vs_time.png")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return path


def _plot_pred_meas(plt, summaries, directory, statistic="mean") -> str:
    unit, div = energy_unit([s.energy_pred_j for s in summaries])
    several = len({s.scenario for s in summaries}) > 1
    fig, axes = plt.subplots(1, 2, figsize=(9, 4))
    pairs = [("time (s)", [(s.time_meas_s, s.time_pred_s, s) for s in summaries]),
             (f"energy ({unit})", [(s.energy_meas_j / div, s.energy_pred_j / div, s)
                                   for s in summaries if s.energy_meas_j])]
    for ax, (name, points) in zip(axes, pairs):
        for meas, pred, s in points:
            ax.scatter(meas, pred, color=_COLORS[s.kind])
            text = s.label + (f" /{s.scenario[1]}" if several else "")
            ax.annotate(text, (meas, pred), fontsize=7, xytext=(4, 4), textcoords="offset points")
        top = max([max(m, p) for m, p, _ in points] or [1.0]) * 1.1
        ax.plot([0, top], [0, top], color="gray", linestyle="--", linewidth=1)
        ax.fill_between([0, top], [0, 0.9 * top], [0, 1.1 * top], color="gray", alpha=0.12,
                        linewidth=0)
        ax.set_xlabel(f"measured {name}")
        ax.set_ylabel(f"predicted {name}")
    fig.suptitle(f"Predicted vs measured ({statistic} of the repeats; band: ±10%"
                 + (", /K: output every K" if several else "") + ")")
    path = os.path.join(directory, "predicted_vs_measured.png")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return path
