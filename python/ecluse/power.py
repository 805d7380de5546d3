"""P_idle and P_max: explicit values, a calibration file (the INI format of docs/energy.md), or
the built-in default `default-uncalibrated` (100 W / 250 W), in that order of precedence."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from . import calibration
from .calibration import CalibrationError  # noqa: F401  (raised by load_calibration)
from .calibration import watts_problem

DEFAULT_ID = "default-uncalibrated"
DEFAULT_IDLE_W = 100.0
DEFAULT_MAX_W = 250.0


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


def load_calibration(path: str, host: Optional[str] = None, cpu: Optional[str] = None) -> Power:
    """The first section matching the host name or the CPU model; the default when none does."""
    section = calibration.find(path, host, cpu)
    if section is None:
        return Power()
    return Power(section.idle_watts, section.max_watts, section.id, "calibration")


def resolve_power(idle: Optional[float], busy: Optional[float], calibration: Optional[str],
                  power_id: Optional[str] = None) -> Power:
    """Explicit values first (both or none), then the calibration file, then the default."""
    if (idle is None) != (busy is None):
        raise ValueError("give both --idle-watts and --max-watts, or neither")
    if idle is not None:
        problem = watts_problem(float(idle), float(busy), ("--idle-watts", "--max-watts"))
        if problem:
            raise ValueError(f"{problem}: give the node's power at rest, then fully busy "
                             "(P_idle <= P_max)")
        return Power(float(idle), float(busy), power_id or "options", "options")
    if calibration:
        return load_calibration(calibration)
    return Power()
