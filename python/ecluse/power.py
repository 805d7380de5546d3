"""P_idle and P_max: explicit values, a calibration file (the INI format of docs/energy.md), or
the built-in default `default-uncalibrated` (100 W / 250 W), in that order of precedence."""
from __future__ import annotations

import fnmatch
import platform as _platform
import socket
from dataclasses import dataclass
from typing import Optional

DEFAULT_ID = "default-uncalibrated"
DEFAULT_IDLE_W = 100.0
DEFAULT_MAX_W = 250.0
_KEYS = ("id", "idle_watts", "max_watts")


class CalibrationError(ValueError):
    """A calibration file that cannot be read; the message names file and line."""


@dataclass(frozen=True)
class Power:
    """Node power at rest and fully busy, with where the figures come from."""

    idle_watts: float = DEFAULT_IDLE_W
    max_watts: float = DEFAULT_MAX_W
    id: str = DEFAULT_ID
    source: str = "default"  # "default", "calibration" or "options"

    def to_json(self) -> dict:
        return {"idle_watts": self.idle_watts, "max_watts": self.max_watts, "id": self.id,
                "source": self.source}

    @classmethod
    def from_json(cls, data: Optional[dict]) -> "Power":
        if not data:
            return cls()
        return cls(float(data["idle_watts"]), float(data["max_watts"]),
                   str(data.get("id", DEFAULT_ID)), str(data.get("source", "default")))

    def label(self) -> str:
        """How output names the power figures, e.g. `default-uncalibrated (100 W idle, 250 W max)`."""
        return f"{self.id} ({self.idle_watts:g} W idle, {self.max_watts:g} W max)"


def cpu_model() -> str:
    """The `model name` of /proc/cpuinfo ('' when unknown)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return _platform.processor()


def _parse_sections(path: str) -> list:
    """[(kind, pattern, line, {key: (value, line)})] in file order."""
    sections = []
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, start=1):
            line = raw.strip()
            if not line or line.startswith(("#", ";")):
                continue
            if line.startswith("["):
                sections.append(_section_header(path, number, line))
            elif "=" in line and sections:
                key, value = (s.strip() for s in line.split("=", 1))
                if key not in _KEYS:
                    raise CalibrationError(f"{path}:{number}: unknown key '{key}'; known keys: "
                                           + ", ".join(_KEYS))
                sections[-1][3][key] = (value, number)
            else:
                raise CalibrationError(f"{path}:{number}: expected [host PATTERN], [cpu PATTERN]"
                                       " or key = value")
    return sections


def _section_header(path: str, number: int, line: str) -> tuple:
    inner = line.strip("[]").split(None, 1)
    if not line.endswith("]") or len(inner) != 2 or inner[0] not in ("host", "cpu"):
        raise CalibrationError(f"{path}:{number}: section must be [host PATTERN] or [cpu PATTERN]")
    return (inner[0], inner[1].strip(), number, {})


def _watts(path: str, values: dict, key: str, section_line: int) -> float:
    if key not in values:
        raise CalibrationError(f"{path}:{section_line}: section has no '{key}'")
    value, number = values[key]
    try:
        watts = float(value)
    except ValueError:
        raise CalibrationError(f"{path}:{number}: '{key}' is not a number: '{value}'") from None
    if watts < 0:
        raise CalibrationError(f"{path}:{number}: '{key}' is negative")
    return watts


def load_calibration(path: str, host: Optional[str] = None, cpu: Optional[str] = None) -> Power:
    """The first section matching the host name or the CPU model; the default when none does."""
    host = host if host is not None else socket.gethostname()
    cpu = cpu if cpu is not None else cpu_model()
    for kind, pattern, line, values in _parse_sections(path):
        if fnmatch.fnmatch(host if kind == "host" else cpu, pattern):
            idle = _watts(path, values, "idle_watts", line)
            busy = _watts(path, values, "max_watts", line)
            ident = values.get("id", (f"{path}:{line}", line))[0]
            return Power(idle, busy, ident, "calibration")
    return Power()


def resolve_power(idle: Optional[float], busy: Optional[float], calibration: Optional[str],
                  power_id: Optional[str] = None) -> Power:
    """Explicit values first (both or none), then the calibration file, then the default."""
    if (idle is None) != (busy is None):
        raise ValueError("give both --idle-watts and --max-watts, or neither")
    if idle is not None:
        return Power(float(idle), float(busy), power_id or "options", "options")
    if calibration:
        return load_calibration(calibration)
    return Power()
