"""The profile's approach runs (issue 15): the application itself, one client, under TP, DC(1)
and DN(1:1), and TP with every CPU of the host a client, at two output intervals, and what
their run reports say beyond the compute-only scaling runs (`ApproachTerms`, docs/model.md
"Approach terms").

This module only rewrites configurations, reads reports and fits; `profile.py` runs the
commands."""
from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass, replace
from typing import Optional, Sequence

from .model import (MIB, AppModel, Approach, ApproachTerms, ModelOptions, Platform, Prediction,
                    Workload, predict, terms_key)
from .report import ReportLike, as_report


@dataclass(frozen=True)
class ApproachRun:
    """How one approach is launched on this host: ranks, virtual-node size, `<dedicated>`."""

    kind: str
    ranks: int
    ranks_per_node: int
    cores: int
    nodes: int
    clients: int = 1

    @property
    def key(self) -> str:
        """The key of its terms in the profile (model.terms_key)."""
        return terms_key(self.kind, self.clients)

    def approach(self) -> Approach:
        return Approach(self.kind, self.cores, self.nodes)

    def platform(self, cpus: int) -> Platform:
        """The virtual nodes of the run on this host."""
        if self.kind == "dn":
            return Platform(2, 1, host_cpus=cpus)
        if self.kind == "dc":
            return Platform(1, 2, host_cpus=cpus)
        return Platform(1, self.clients, host_cpus=cpus)


# One client each, so that at most 2 processes are busy on a 2-CPU machine.
APPROACH_RUNS = (ApproachRun("tp", 1, 1, 0, 0), ApproachRun("dc", 2, 2, 1, 0),
                 ApproachRun("dn", 2, 1, 0, 1))


def approach_runs(cpus: int) -> tuple:
    """The approach runs on a host of `cpus` CPUs: APPROACH_RUNS, and TP with `cpus` clients
    (every CPU busy, as TP runs a node): its clients write at once and the kernel's write-back
    competes with their compute, which one client with a free CPU beside it does not show."""
    if cpus < 2:
        return APPROACH_RUNS
    return APPROACH_RUNS + (ApproachRun("tp", cpus, cpus, 0, 0, clients=cpus),)

_ARCH = re.compile(r"<architecture\b[^>]*>(.*?)</architecture\s*>", re.S)
_DEDICATED = re.compile(r"<dedicated\b[^>]*?/>|<dedicated\b[^>]*>.*?</dedicated\s*>", re.S)
_BUFFER = re.compile(r"<buffer\b[^>]*?/>", re.S)
_DOMAINS = re.compile(r"""<domains\b[^>]*?\bcount\s*=\s*["']\s*(\d+)\s*["']""")
_SIZE = re.compile(r"""\bsize\s*=\s*(["'])([^"']*)\1""")
_UNITS = {"": 1, "b": 1, "kb": 10 ** 3, "mb": 10 ** 6, "gb": 10 ** 9, "kib": 2 ** 10,
          "mib": 2 ** 20, "gib": 2 ** 30}


def config_index(command: Sequence[str], config: Optional[str] = None) -> Optional[int]:
    """Where the configuration file is in the command: the argument equal to `config` when
    given, else the one after `--config`, else the first ending in `.xml`; None: not found."""
    if config is not None:
        return next((i for i, part in enumerate(command) if part == config), None)
    for i, part in enumerate(command[:-1]):
        if part == "--config" and command[i + 1].endswith(".xml"):
            return i + 1
    return next((i for i, part in enumerate(command) if part.endswith(".xml")), None)


def _size_bytes(text: str) -> Optional[int]:
    m = re.fullmatch(r"\s*(\d+)\s*([a-zA-Z]*)\s*", text)
    if not m or m.group(2).lower() not in _UNITS:
        return None
    return int(m.group(1)) * _UNITS[m.group(2).lower()]


def domains_count(text: str) -> Optional[int]:
    """The `<domains count>` of the configuration `text` (blocks per client), None when it has
    none or a count below 1."""
    found = _DOMAINS.search(text)
    return int(found.group(1)) if found and int(found.group(1)) >= 1 else None


def has_dedicated(text: str) -> bool:
    """Whether the configuration `text` gives the run dedicated cores or nodes."""
    arch = _ARCH.search(text)
    element = _DEDICATED.search(arch.group(1)) if arch else None
    if not element:
        return False
    counts = re.findall(r"""\b(?:cores|nodes)\s*=\s*["']\s*(\d+)""", element.group(0))
    return any(int(c) > 0 for c in counts)


def approach_config(text: str, cores: int, nodes: int, min_buffer: int, path: str = "") -> str:
    """The configuration `text` with its `<dedicated>` set to `cores`/`nodes` and its buffer at
    least `min_buffer` bytes (DC/DN), everything else as it was (namespace, comments, lines).
    ValueError naming the file when there is no `<architecture>` element."""
    arch = _ARCH.search(text)
    if not arch:
        raise ValueError(f"{path or 'configuration'}: no <architecture> element: the profile "
                         "cannot set up its DC and DN runs (add <architecture> with "
                         "<dedicated cores=\"0\" nodes=\"0\"/>, or profile with --no-approaches)")
    body = arch.group(1)
    dedicated = f'<dedicated cores="{cores}" nodes="{nodes}"/>'
    if _DEDICATED.search(body):
        body = _DEDICATED.sub(dedicated, body, count=1)
    else:
        body = f"\n    {dedicated}" + body
    if cores or nodes:
        body = _with_buffer(body, min_buffer)
    start, end = arch.span(1)
    return text[:start] + body + text[end:]


def _with_buffer(body: str, min_buffer: int) -> str:
    """A buffer of at least `min_buffer` bytes (whole MiB) in an `<architecture>` body."""
    size = f"{max(1, math.ceil(min_buffer / MIB))}MiB"
    buf = _BUFFER.search(body)
    if not buf:
        return body + f'  <buffer name="ecluse-buffer" size="{size}"/>\n  '
    element = buf.group(0)
    current = _SIZE.search(element)
    if current and (_size_bytes(current.group(2)) or 0) >= min_buffer:
        return body
    if current:
        new = element[:current.start()] + f'size="{size}"' + element[current.end():]
    else:
        new = element[:-2].rstrip() + f' size="{size}"/>'
    return body[:buf.start()] + new + body[buf.end():]


def _phase(role, name: str) -> float:
    value = role.phase_wall_s(name) if role else None
    return value or 0.0


def _role_cpu(report) -> dict:
    return {name: role.cpu_usage_percent for name, role in report.roles.items()
            if role.cpu_usage_percent is not None}


def point(run: ApproachRun, report: ReportLike, summary: dict, every: int) -> dict:
    """What one approach run measured (per client; seconds), from its report and the program's
    JSON line (its loop time `wall_time_s`, when it prints one). ValueError when the report
    lacks what the model needs."""
    rep = as_report(report)
    if rep is None:
        raise ValueError(f"{run.kind} run wrote no run report (ECLUSE_REPORT)")
    sim = rep.roles.get("simulation")
    iterations, outputs = rep.iteration_count() or 0, rep.output_count()
    if not sim or not sim.ranks or iterations <= 0 or outputs <= 0 \
            or rep.completion_time_s is None:
        raise ValueError(f"{run.kind} run: its report has no simulation role, iteration or "
                         f"output (every {every}): cannot measure the approach")
    n = sim.ranks
    copy, wait, store = (_phase(sim, p) / n for p in ("write", "wait", "store"))
    completion = rep.completion_time_s
    if "wall_time_s" in summary:
        loop = float(summary["wall_time_s"])
        compute = loop - copy - wait - store
    else:
        compute = _phase(sim, "compute") / n
    # TP: the clients' time inside Ecluse in the iterations that wrote nothing (a Collective
    # store takes part in every iteration) is a per-iteration cost of the approach, which the
    # write time per output does not hold: counted with the compute (the interference fit
    # scales it with the iterations) instead of falling into the fixed overhead.
    compute += rep.tp_quiet_s_per_client()
    per_output = rep.bytes_per_output() or 0.0
    server = rep.server_role()
    # The interval the run had, not the one asked for: a program that writes at every step
    # whatever its {output_every} (an I/O kernel) wrote `outputs` times.
    return {"kind": run.kind, "output_every": rep.output_every() or every,
            "iterations": iterations,
            "outputs": outputs, "clients": n, "completion_s": completion,
            "compute_s": compute, "copy_s": copy, "wait_s": wait, "store_s": store,
            "bytes_per_output": per_output,
            "store_s_per_output": rep.io_time_per_output(),
            "store_writers": (server.ranks if server and server.ranks else n),
            "copy_bytes_per_s": rep.copy_bytes_per_client_s(),
            "io_busy": rep.store_cpu_share(), "idle_fraction": rep.server_idle_fraction(),
            "cpu_percent": _role_cpu(rep)}


def _median(values: Sequence[Optional[float]]) -> Optional[float]:
    """The median of the known values (None: unknown), None when none is known."""
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def fit_interference(points: Sequence[dict], t0: float) -> tuple:
    """(compute_factor, per_output_s, bytes_per_client): the clients' compute beyond the
    compute-only time `t0` per iteration, as factor x compute + per_output x outputs, by least
    squares over the points (both non-negative; one output interval: the factor alone)."""
    rows = [(p["iterations"] * t0, p["outputs"], p["compute_s"] - p["iterations"] * t0)
            for p in points]
    ref = _median([p["bytes_per_output"] / p["clients"] for p in points]) or 0.0
    if len({r[1] for r in rows}) >= 2:
        a, b = _lstsq2(rows)
        # A per-output cost is kept only when what it adds between the intervals exceeds the
        # spread of their repeats (`compute_spread_s`, median_points): else it fits the noise.
        span = (max(r[1] for r in rows) - min(r[1] for r in rows)) * b
        if span <= max(p.get("compute_spread_s", 0.0) for p in points):
            a, b = _factor_only(rows), 0.0
        if a >= 0 and b >= 0:
            return a, b, ref
        if a < 0 <= b:   # the factor alone would be negative: per output alone
            b = sum(r[1] * r[2] for r in rows) / sum(r[1] ** 2 for r in rows)
            return 0.0, max(0.0, b), ref
    return max(0.0, _factor_only(rows)), 0.0, ref


def _factor_only(rows) -> float:
    return sum(r[0] * r[2] for r in rows) / sum(r[0] ** 2 for r in rows)


def _lstsq2(rows) -> tuple:
    """Least squares of y = a x1 + b x2 (no intercept), relative: rows weighted by 1/x1."""
    s11 = s12 = s22 = s1y = s2y = 0.0
    for x1, x2, y in rows:
        w = 1.0 / (x1 * x1) if x1 > 0 else 1.0
        s11 += w * x1 * x1
        s12 += w * x1 * x2
        s22 += w * x2 * x2
        s1y += w * x1 * y
        s2y += w * x2 * y
    det = s11 * s22 - s12 * s12
    if abs(det) < 1e-300:
        return (s1y / s11 if s11 else 0.0), 0.0
    return (s1y * s22 - s2y * s12) / det, (s11 * s2y - s12 * s1y) / det


_MEDIAN_FIELDS = ("completion_s", "compute_s", "copy_s", "wait_s", "store_s", "bytes_per_output",
                  "store_s_per_output", "copy_bytes_per_s", "io_busy", "idle_fraction")


def median_points(points: Sequence[dict]) -> list:
    """One point per output interval: each measured figure the median of that interval's
    repeats (as the profile keeps the median run of every scaling point), so that one
    disturbed run does not move the fit."""
    groups: dict = {}
    for p in points:
        groups.setdefault(p["output_every"], []).append(p)
    out = []
    for _, group in sorted(groups.items()):
        merged = dict(group[0])
        merged.update({k: _median([p.get(k) for p in group]) for k in _MEDIAN_FIELDS})
        # The repeats' spread, robust to one disturbed run: twice the median absolute
        # deviation from their median (the range of three repeats of which none is disturbed).
        mid = merged["compute_s"]
        merged["compute_spread_s"] = 2 * _median([abs(p["compute_s"] - mid) for p in group])
        roles = {role for p in group for role in p["cpu_percent"]}
        merged["cpu_percent"] = {r: _median([p["cpu_percent"].get(r) for p in group])
                                 for r in roles}
        out.append(merged)
    return out


def terms_for(run: ApproachRun, points: Sequence[dict], app: AppModel, cpus: int) -> ApproachTerms:
    """The approach's measured terms from its runs' points (the median of each output
    interval's repeats); the fixed overhead is what its runs measured beyond every other
    modelled term (median over the intervals)."""
    runs = len(points)
    points = median_points(points)
    t0 = app.s_cores.time(points[0]["clients"]) if app.s_cores.points else app.t_base_s
    a, b, ref = fit_interference(points, t0)
    store_bw = _median([p["bytes_per_output"] / p["store_s_per_output"] for p in points
                        if p.get("store_s_per_output")])
    terms = ApproachTerms(
        compute_factor=a, per_output_s=b, bytes_per_client=ref, overhead_s=0.0,
        store_bytes_per_s=store_bw,
        store_writers=int(points[0]["store_writers"] or 1),
        copy_bytes_per_s=(_median([p["copy_bytes_per_s"] for p in points])
                          if run.kind != "tp" else None),
        io_busy=_median([p["io_busy"] for p in points]),
        idle_fraction=_median([p["idle_fraction"] for p in points]),
        cpu=tuple(sorted({role: _median([p["cpu_percent"].get(role) for p in points])
                          for p in points for role in p["cpu_percent"]}.items())),
        runs=runs)
    rest = [(p, predict_without_overhead(run, p, app, terms, cpus)) for p in points]
    # What each run spent beyond its own compute phase and the modelled I/O terms: the compute
    # phase is measured, so the machine's speed during the run does not land in the overhead.
    overhead = max(0.0, _median([p["completion_s"] - p["compute_s"] - (t.time_s - t.compute_s)
                                 for p, t in rest]) or 0.0)
    terms = replace(terms, overhead_s=overhead)
    errors = [abs(t.time_s + overhead - p["completion_s"]) / p["completion_s"] for p, t in rest
              if p["completion_s"] > 0]
    return replace(terms, residual=max(errors) if errors else None)


def predict_without_overhead(run: ApproachRun, p: dict, app: AppModel, terms: ApproachTerms,
                             cpus: int) -> Prediction:
    model = replace(app, terms=tuple(sorted(dict(app.terms, **{run.kind: terms}).items())))
    workload = Workload(p["iterations"], p["output_every"], p["bytes_per_output"])
    options = ModelOptions.extended(fixed_overhead=False)
    return predict(model, run.platform(cpus), workload, run.approach(), options)
