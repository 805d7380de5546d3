"""The calibration file of docs/energy.md, read and written in one place of the Python package
(the advisor's power figures and the calibration run). The rules are those of the runtime's
reader (src/energy/Calibration.cpp), so that a file one accepts the other accepts too:

    # comment
    [host PATTERN]   or   [cpu PATTERN]       (shell wildcards, first matching section wins)
    id = ...                                  (optional; default <file>:<line of the section>)
    idle_watts = ...                          (finite, non-negative, not above max_watts)
    max_watts = ...
"""
from __future__ import annotations

import fnmatch
import math
import platform as _platform
import socket
from dataclasses import dataclass
from typing import List, Optional

KEYS = ("id", "idle_watts", "max_watts")
KINDS = ("host", "cpu")


class CalibrationError(ValueError):
    """A calibration file that cannot be read; the message names file and line."""


@dataclass(frozen=True)
class Section:
    """One `[host PATTERN]` or `[cpu PATTERN]` section and its values."""

    kind: str
    pattern: str
    id: str
    idle_watts: float
    max_watts: float
    line: int = 0

    def matches(self, host: str, cpu: str) -> bool:
        return fnmatch.fnmatchcase(host if self.kind == "host" else cpu, self.pattern)

    def text(self) -> str:
        """The section as the file holds it (watts with one decimal)."""
        return (f"[{self.kind} {self.pattern}]\nid = {self.id}\n"
                f"idle_watts = {self.idle_watts:.1f}\nmax_watts = {self.max_watts:.1f}\n")


def host_name() -> str:
    """The name `[host PATTERN]` sections are matched against."""
    return socket.gethostname()


def cpu_model() -> str:
    """The `model name` of /proc/cpuinfo, which `[cpu PATTERN]` sections are matched against."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return _platform.processor()


def write_text(sections: List[Section], comment: str = "") -> str:
    """A calibration file holding `sections`, after a `# comment` line when one is given."""
    return (f"# {comment}\n" if comment else "") + "\n".join(s.text() for s in sections)


def read(path: str) -> List[Section]:
    """Every section of the file, checked as the runtime checks them."""
    with open(path, encoding="utf-8") as f:
        return _Parser(path).parse(f)


def find(path: str, host: Optional[str] = None, cpu: Optional[str] = None) -> Optional[Section]:
    """The first section matching the host name or the CPU model; None when none does."""
    host = host if host is not None else host_name()
    cpu = cpu if cpu is not None else cpu_model()
    return next((s for s in read(path) if s.matches(host, cpu)), None)


class _Parser:
    """Line by line, as Calibration.cpp: errors name `file:line`."""

    def __init__(self, path: str):
        self.path = path
        self.open = []  # [kind, pattern, line, {key: value}] per section

    def error(self, line: int, message: str) -> CalibrationError:
        return CalibrationError(f"{self.path}:{line}: {message}")

    def parse(self, lines) -> List[Section]:
        for number, raw in enumerate(lines, start=1):
            text = raw.strip()
            if not text or text.startswith("#"):
                continue
            if text.startswith("[") and text.endswith("]"):
                self.open.append(self.header(number, text))
            elif not self.open:
                raise self.error(number, "key before the first [host PATTERN] or [cpu PATTERN] "
                                         "section")
            else:
                self.key(number, text)
        return [self.section(*s) for s in self.open]

    def header(self, number: int, text: str) -> list:
        kind, _, pattern = text[1:-1].strip().partition(" ")
        if not pattern.strip() or kind not in KINDS:
            raise self.error(number, f"section '{text}' must be [host PATTERN] or [cpu PATTERN]")
        return [kind, pattern.strip(), number, {"id": f"{self.path}:{number}"}]

    def key(self, number: int, text: str) -> None:
        if "=" not in text:
            raise self.error(number, f"expected key = value, got '{text}'")
        key, value = (part.strip() for part in text.split("=", 1))
        if key not in KEYS:
            raise self.error(number, f"unknown key '{key}'; known keys: " + ", ".join(KEYS))
        self.open[-1][3][key] = value if key == "id" else self.watts(number, value)

    def watts(self, number: int, value: str) -> float:
        try:
            if "_" not in value:  # digit separators: Python's float reads them, stod does not
                return float(value)
        except ValueError:
            pass
        raise self.error(number, f"'{value}' is not a number of watts")

    def section(self, kind: str, pattern: str, number: int, values: dict) -> Section:
        if "idle_watts" not in values or "max_watts" not in values:
            raise self.error(number, "section needs both idle_watts and max_watts")
        idle, busy = values["idle_watts"], values["max_watts"]
        problem = watts_problem(idle, busy)
        if problem:
            raise self.error(number, problem)
        return Section(kind, pattern, values["id"], idle, busy, number)


def watts_problem(idle: float, busy: float, names: tuple = ("idle_watts", "max_watts")
                  ) -> Optional[str]:
    """What is wrong with a node's power at rest and fully busy, by the runtime's rules (finite,
    non-negative, idle not above max), naming them `names`; None when nothing is."""
    if not math.isfinite(idle) or not math.isfinite(busy) or idle < 0 or busy < 0:
        return f"{names[0]} and {names[1]} must be finite and non-negative"
    if idle > busy:
        return f"{names[0]} ({idle:g}) is above {names[1]} ({busy:g})"
    return None
