"""The run report (schema ecluse-report/2, docs/report.md), read in one place: typed views of the
fields that `ecluse validate`, `ecluse profile`, the benchmark scripts and the examples use, and
the opt-in per-iteration trace the report points to.

Pure standard library, so that scripts run by a bare `python3` (bench/collect.py) can use it. A
field that is missing or not of its JSON type reads as None (numbers) or empty (sections): each
reader decides what a missing figure means; `load` is the strict entry for a file a user names."""
from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Tuple, Union

SCHEMA = "ecluse-report/2"
OLD_SCHEMAS = ("ecluse-report/1",)   # read too: their per-iteration list is summarised here
TRACE_FORMAT = "ecluse-trace/1"
SERVER_ROLES = ("dedicated-core", "dedicated-node")


class ReportError(ValueError):
    """A file that is not a run report; the message names the file."""


def number(value: Any) -> Optional[float]:
    """A JSON number as float; anything else (missing, text, bool) as None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def integer(value: Any) -> Optional[int]:
    """A JSON number that is a whole number as int; anything else as None."""
    figure = number(value)
    return int(figure) if figure is not None and figure.is_integer() else None


def _text(value: Any) -> Optional[str]:
    return value if isinstance(value, str) else None


def _section(data: Any, key: str) -> dict:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else {}


_READERS = {"Optional[float]": number, "Optional[int]": integer, "Optional[str]": _text}


def _typed(cls, sources: Tuple[dict, ...], **given):
    """An instance of the dataclass `cls` whose plain fields (number, whole number, text) are
    read from the JSON key of their name, in the first source holding it; `given` the others."""
    values = {}
    for f in dataclasses.fields(cls):
        if f.name not in given and f.type in _READERS:
            source = next((d for d in sources if f.name in d), {})
            values[f.name] = _READERS[f.type](source.get(f.name))
    return cls(**values, **given)


def _entries(data: Any, key: str, read) -> dict:
    """read(entry) of every object of the section `key` (roles, phases), by name."""
    return {name: read(e) for name, e in _section(data, key).items() if isinstance(e, dict)}


@dataclass(frozen=True)
class Phase:
    wall_s: Optional[float] = None
    cpu_s: Optional[float] = None


@dataclass(frozen=True)
class Role:
    """One role's figures, summed over its ranks (`cpu_usage_percent`: cpu_s / wall_s x 100)."""

    ranks: Optional[int] = None
    wall_s: Optional[float] = None
    cpu_s: Optional[float] = None
    cpu_usage_percent: Optional[float] = None
    finalize_wait_s: Optional[float] = None  # clients: waiting in finalize for the last stores
    phases: Mapping[str, Phase] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: dict) -> "Role":
        return _typed(cls, (data,), phases=_entries(data, "phases", lambda p: _typed(Phase, (p,))))

    def phase_wall_s(self, name: str) -> Optional[float]:
        phase = self.phases.get(name)
        return phase.wall_s if phase else None


@dataclass(frozen=True)
class Distribution:
    """One series summarised over its samples (ranks x iterations): moments, quantiles within
    4.4% (the histogram's bucket), and the largest of the ranks' means."""

    count: Optional[int] = None
    sum: Optional[float] = None
    mean: Optional[float] = None
    stddev: Optional[float] = None
    min: Optional[float] = None
    max: Optional[float] = None
    p50: Optional[float] = None
    p90: Optional[float] = None
    p99: Optional[float] = None
    slowest_rank_mean: Optional[float] = None

    @classmethod
    def from_dict(cls, data: dict) -> "Distribution":
        return _typed(cls, (data,))


@dataclass(frozen=True)
class Span:
    """How many iterations of a kind, the first and the last (None while there is none)."""

    count: Optional[int] = None
    first: Optional[int] = None
    last: Optional[int] = None
    every: Optional[int] = None       # outputs: the smallest gap between two of them
    every_max: Optional[int] = None   # outputs: the largest gap

    @classmethod
    def from_dict(cls, data: dict) -> "Span":
        return _typed(cls, (data,))


_DISTRIBUTIONS = ("client_write_s", "client_quiet_s", "client_bytes", "server_store_s",
                  "server_store_empty_s")


@dataclass(frozen=True)
class Iterations:
    """The iterations the clients ended, summarised: outputs (iterations handing bytes over),
    client-visible write time of outputs and of quiet iterations, bytes per client and output,
    store time with and without blocks (TP: the clients'), failed stores."""

    count: Optional[int] = None
    first: Optional[int] = None
    last: Optional[int] = None
    outputs: Span = Span()
    client_write_s: Distribution = Distribution()
    client_quiet_s: Distribution = Distribution()
    client_bytes: Distribution = Distribution()
    server_store_s: Distribution = Distribution()
    server_store_empty_s: Distribution = Distribution()
    store_errors: Optional[float] = None
    failed_iterations: Span = Span()

    @classmethod
    def from_dict(cls, data: dict) -> "Iterations":
        series = {k: Distribution.from_dict(_section(data, k)) for k in _DISTRIBUTIONS}
        return _typed(cls, (data,), outputs=Span.from_dict(_section(data, "outputs")),
                      failed_iterations=Span.from_dict(_section(data, "failed_iterations")),
                      **series)


@dataclass(frozen=True)
class Energy:
    """The run's energy with its labels; per-role joules apportioned by CPU time."""

    joules: Optional[float] = None
    average_power_w: Optional[float] = None
    source: Optional[str] = None
    quality: Optional[str] = None
    calibration: Optional[str] = None
    # CPU time other processes spent on the run's hosts, counted in `joules` (reports before
    # these fields: None)
    hosts_with_other_load: Optional[int] = None
    other_cpu_s: Optional[float] = None
    by_role_j: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: dict) -> "Energy":
        roles = _entries(data, "by_role", lambda r: number(r.get("joules")))
        return _typed(cls, (data,), by_role_j={k: j for k, j in roles.items() if j is not None})

    def label(self, calibration: bool = True) -> str:
        """`source/quality`, then `/calibration` when there is one (and it is asked for)."""
        text = f"{self.source or '?'}/{self.quality or '?'}"
        return text + f"/{self.calibration}" if calibration and self.calibration else text


@dataclass(frozen=True)
class Report:
    """What a run report says; `data` keeps the document itself for fields not typed here."""

    data: Mapping[str, Any]
    path: str = ""
    schema: Optional[str] = None
    approach: Optional[str] = None
    dedicated_cores: Optional[int] = None
    dedicated_nodes: Optional[int] = None
    ranks_per_node: Optional[int] = None
    domains: Optional[int] = None     # blocks per client (architecture.domains)
    ranks: Optional[int] = None
    nodes: Optional[int] = None
    hosts: Optional[int] = None
    completion_time_s: Optional[float] = None
    roles: Mapping[str, Role] = field(default_factory=dict)
    iterations: Iterations = Iterations()
    energy: Optional[Energy] = None  # None: the report has no energy section
    io_rate_mb_s_per_w: Optional[float] = None

    @classmethod
    def from_dict(cls, data: dict, path: str = "") -> "Report":
        energy = data.get("energy")
        listed = data.get("iterations")
        iterations = (_summarise_v1(listed) if isinstance(listed, list)
                      else Iterations.from_dict(_section(data, "iterations")))
        return _typed(cls, (data, _section(data, "architecture")), data=data, path=path,
                      roles=_entries(data, "roles", Role.from_dict),
                      iterations=iterations,
                      energy=Energy.from_dict(energy) if isinstance(energy, dict) else None,
                      io_rate_mb_s_per_w=number(_section(data, "io").get("rate_mb_s_per_w")))

    def server_role(self) -> Optional[Role]:
        """The dedicated resources' role (DC or DN); None in TP."""
        return next((self.roles[r] for r in SERVER_ROLES if r in self.roles), None)

    def store_cpu_share(self) -> Optional[float]:
        """CPU share of whoever stores (TP: the clients; DC/DN: the servers): their `store`
        phase's cpu_s / wall_s; None without one."""
        role = self.roles.get("simulation") if self.approach == "tp" else self.server_role()
        phase = role.phases.get("store") if role else None
        if not phase or not phase.wall_s or phase.cpu_s is None:
            return None
        return min(1.0, phase.cpu_s / phase.wall_s)

    def tp_quiet_s_per_client(self) -> float:
        """TP: seconds each client spent inside Ecluse in the iterations in which it wrote
        nothing (`iterations.client_quiet_s`, summed over the clients, over their count):
        end_iteration still runs the stores there (a Collective store takes part in every
        iteration), a time neither the compute phase nor the write time per output holds.
        0 for DC/DN (their clients' Ecluse time is their `write` phase, the copy) and when the
        report does not say."""
        sim = self.roles.get("simulation")
        quiet = self.iterations.client_quiet_s.sum
        if self.approach != "tp" or not sim or not sim.ranks or quiet is None \
                or not math.isfinite(quiet) or quiet <= 0:
            return 0.0
        return quiet / sim.ranks

    def server_idle_fraction(self) -> Optional[float]:
        """The dedicated resources' `idle` phase / their wall time; None in TP."""
        role = self.server_role()
        idle = role.phase_wall_s("idle") if role and role.wall_s else None
        return None if idle is None else min(1.0, idle / role.wall_s)

    def copy_bytes_per_client_s(self, outputs: Optional[int] = None) -> Optional[float]:
        """Bytes/s of one client's hand-over into Ecluse's buffer: the clients' `write` phase
        (summed over them) against the bytes of the output iterations (`outputs` of them, the
        report's own count unless given); None without either."""
        sim = self.roles.get("simulation")
        write = sim.phase_wall_s("write") if sim else None
        per_output = self.bytes_per_output()
        outputs = self.output_count() if outputs is None else outputs
        if not write or write <= 0 or not per_output or outputs <= 0:
            return None
        return per_output * outputs / write

    def iteration_count(self) -> Optional[int]:
        """Iterations the clients ended (with or without output); None when not reported."""
        return self.iterations.count

    def output_count(self) -> int:
        """Iterations in which the clients handed bytes over."""
        return self.iterations.outputs.count or 0

    def output_every(self) -> Optional[int]:
        """The interval between outputs: their gap when it is constant, else the mean gap (the
        one that gives as many outputs); one output at iteration i: i + 1."""
        o = self.iterations.outputs
        if o.every and o.every == o.every_max:
            return o.every
        if o.count and o.count >= 2 and o.first is not None and o.last is not None:
            return max(1, round((o.last - o.first) / (o.count - 1)))
        return o.first + 1 if o.count == 1 and o.first is not None else None

    def bytes_per_output(self) -> Optional[float]:
        """Mean bytes the clients hand over per output (ghost cells included); None without any."""
        total, outputs = self.iterations.client_bytes.sum, self.output_count()
        return total / outputs if total and outputs else None

    def write_time_per_output(self) -> Optional[float]:
        """Client-visible seconds per output of the slowest client (its mean over its outputs;
        TP: including its stores): the time the clients wait for one another at an output."""
        return self.iterations.client_write_s.slowest_rank_mean

    def store_time_per_output(self) -> Optional[float]:
        """Seconds per output of the slowest store rank (DC/DN: servers; TP: clients)."""
        return self.iterations.server_store_s.slowest_rank_mean

    def io_time_per_output(self) -> Optional[float]:
        """Seconds per output of whoever stores, as the model takes it: TP's slowest client's
        visible write (its stores included), DC/DN's slowest server's store."""
        if self.approach == "tp":
            return self.write_time_per_output()
        return self.store_time_per_output()

    def trace_files(self) -> Tuple[str, ...]:
        """The per-rank trace files of the run (docs/report.md); empty when it wrote none."""
        trace = _section(self.data, "trace")
        files, ranks = _text(trace.get("files")), integer(trace.get("ranks"))
        if not files or ranks is None:
            return ()
        return tuple(files.replace("{rank}", str(r)) for r in range(ranks))

    def require(self, name: str) -> Any:
        """A field `validate` cannot do without; ReportError naming the file when missing."""
        value = getattr(self, name)
        if value is None:
            raise ReportError(f"{self.path}: no '{name}' in the report")
        return value


def _summarise_v1(entries: list) -> Iterations:
    """The summary of an ecluse-report/1 per-iteration list (one entry per iteration, figures
    already combined over ranks): the slowest rank's mean is taken as the mean of each output's
    maximum, which is what readers of /1 reports used."""
    rows = [e for e in entries if isinstance(e, dict) and integer(e.get("iteration")) is not None]
    index = [integer(e.get("iteration")) for e in rows]
    outs = [e for e in rows if (number(e.get("bytes")) or 0) > 0]
    at = [integer(e.get("iteration")) for e in outs]
    gaps = [b - a for a, b in zip(at, at[1:])]

    def series(key: str) -> Distribution:
        means = [number(_section(e, key).get("mean")) or 0.0 for e in outs]
        maxima = [number(_section(e, key).get("max")) or 0.0 for e in outs]
        if not outs:
            return Distribution(count=0, sum=0.0)
        return Distribution(count=len(outs), sum=sum(means), mean=sum(means) / len(outs),
                            min=min(means), max=max(maxima),
                            slowest_rank_mean=sum(maxima) / len(outs))

    total = sum(number(e.get("bytes")) or 0.0 for e in outs)
    return Iterations(
        count=max(index) + 1 if index else 0, first=min(index, default=None),
        last=max(index, default=None),
        outputs=Span(len(outs), at[0] if at else None, at[-1] if at else None,
                     min(gaps) if gaps else None, max(gaps) if gaps else None),
        client_write_s=series("client_write_s"), server_store_s=series("server_store_s"),
        client_bytes=Distribution(count=len(outs), sum=total))


ReportLike = Union[Report, Mapping[str, Any], None]


def as_report(report: ReportLike) -> Optional[Report]:
    """A Report from a Report, a parsed document (dict) or None."""
    if report is None or isinstance(report, Report):
        return report
    return Report.from_dict(dict(report))


def read_document(path: str) -> Optional[dict]:
    """The JSON object of a file; None when it is missing or holds no JSON object."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def read(path: str) -> Optional[Report]:
    """The report a run left in `path`, or None when there is none (lenient: no schema check)."""
    data = read_document(path)
    return Report.from_dict(data, path) if data is not None else None


def load(path: str) -> Report:
    """A report a user names: ReportError naming the file unless it is one of this schema."""
    with open(path, encoding="utf-8") as f:
        try:
            data = json.load(f)
        except ValueError as e:
            raise ReportError(f"{path}: not JSON ({e}): give the report file a run wrote "
                              "(ECLUSE_REPORT, docs/report.md)") from None
    if not isinstance(data, dict) or data.get("schema") not in (SCHEMA,) + OLD_SCHEMAS:
        found = data.get("schema") if isinstance(data, dict) else None
        what = f"schema is {found!r}" if found is not None else "has no 'schema' field"
        hint = ("; this is a profile (ecluse profile): give it with --profile, and a run's "
                "report here" if found == "ecluse-profile/1" else
                ": give the report file a run wrote (ECLUSE_REPORT, docs/report.md)")
        raise ReportError(f"{path}: {what}, expected '{SCHEMA}' (or the older "
                          f"{', '.join(repr(o) for o in OLD_SCHEMAS)}){hint}")
    return Report.from_dict(data, path)


@dataclass(frozen=True)
class TraceRow:
    """One line of a rank's trace: one iteration as that rank saw it."""

    iteration: int
    ended: bool            # a client ended it: write_s and bytes are its figures
    write_s: float
    bytes: float
    stored: bool           # the stores ran on it: store_s, stored_blocks and store_errors are
    store_s: float
    stored_blocks: float
    store_errors: float


def read_trace(path: str) -> Tuple[TraceRow, ...]:
    """The rows of one rank's trace file (format ecluse-trace/1); ReportError naming the file
    when it is not one."""
    with open(path, encoding="utf-8") as f:
        header, columns = f.readline(), f.readline().strip()
        if not header.startswith("# " + TRACE_FORMAT) or not columns.startswith("iteration,"):
            raise ReportError(f"{path}: not an {TRACE_FORMAT} file")
        rows = []
        for line in f:
            v = line.split(",")
            rows.append(TraceRow(int(v[0]), v[1] == "1", float(v[2]), float(v[3]), v[4] == "1",
                                 float(v[5]), float(v[6]), float(v[7])))
    return tuple(rows)
