"""The run report (schema ecluse-report/1, docs/report.md), read in one place: typed views of the
fields that `ecluse validate`, `ecluse profile`, the benchmark scripts and the examples use.

Pure standard library, so that scripts run by a bare `python3` (bench/collect.py) can use it. A
field that is missing or not of its JSON type reads as None (numbers) or empty (sections): each
reader decides what a missing figure means; `load` is the strict entry for a file a user names."""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Tuple, Union

SCHEMA = "ecluse-report/1"
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
    phases: Mapping[str, Phase] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: dict) -> "Role":
        return _typed(cls, (data,), phases=_entries(data, "phases", lambda p: _typed(Phase, (p,))))

    def phase_wall_s(self, name: str) -> Optional[float]:
        phase = self.phases.get(name)
        return phase.wall_s if phase else None


@dataclass(frozen=True)
class Iteration:
    """One iteration: bytes handed over, client-visible write and server store times."""

    iteration: int
    bytes: float = 0.0
    client_write_mean_s: Optional[float] = None
    client_write_max_s: Optional[float] = None
    server_store_mean_s: Optional[float] = None
    server_store_max_s: Optional[float] = None

    @classmethod
    def from_dict(cls, data: dict) -> Optional["Iteration"]:
        index = integer(data.get("iteration"))
        if index is None:
            return None
        write, store = _section(data, "client_write_s"), _section(data, "server_store_s")
        return cls(index, number(data.get("bytes")) or 0.0, number(write.get("mean")),
                   number(write.get("max")), number(store.get("mean")), number(store.get("max")))


@dataclass(frozen=True)
class Energy:
    """The run's energy with its labels; per-role joules apportioned by CPU time."""

    joules: Optional[float] = None
    average_power_w: Optional[float] = None
    source: Optional[str] = None
    quality: Optional[str] = None
    calibration: Optional[str] = None
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
    ranks: Optional[int] = None
    nodes: Optional[int] = None
    hosts: Optional[int] = None
    completion_time_s: Optional[float] = None
    roles: Mapping[str, Role] = field(default_factory=dict)
    iterations: Tuple[Iteration, ...] = ()
    energy: Optional[Energy] = None  # None: the report has no energy section
    io_rate_mb_s_per_w: Optional[float] = None

    @classmethod
    def from_dict(cls, data: dict, path: str = "") -> "Report":
        entries = data.get("iterations") if isinstance(data.get("iterations"), list) else []
        iterations = (Iteration.from_dict(i) for i in entries if isinstance(i, dict))
        energy = data.get("energy")
        return _typed(cls, (data, _section(data, "architecture")), data=data, path=path,
                      roles=_entries(data, "roles", Role.from_dict),
                      iterations=tuple(i for i in iterations if i is not None),
                      energy=Energy.from_dict(energy) if isinstance(energy, dict) else None,
                      io_rate_mb_s_per_w=number(_section(data, "io").get("rate_mb_s_per_w")))

    def server_role(self) -> Optional[Role]:
        """The dedicated resources' role (DC or DN); None in TP."""
        return next((self.roles[r] for r in SERVER_ROLES if r in self.roles), None)

    def outputs(self) -> Tuple[Iteration, ...]:
        """The iterations that handed bytes over."""
        return tuple(i for i in self.iterations if i.bytes > 0)

    def bytes_per_output(self) -> Optional[float]:
        """Mean bytes of the output iterations (ghost cells included); None without any."""
        sizes = [i.bytes for i in self.outputs()]
        return sum(sizes) / len(sizes) if sizes else None

    def require(self, name: str) -> Any:
        """A field `validate` cannot do without; ReportError naming the file when missing."""
        value = getattr(self, name)
        if value is None:
            raise ReportError(f"{self.path}: no '{name}' in the report")
        return value


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
        data = json.load(f)
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        found = data.get("schema") if isinstance(data, dict) else None
        raise ReportError(f"{path}: schema is {found!r}, expected '{SCHEMA}'")
    return Report.from_dict(data, path)
