"""A calibration run: where a node has an energy counter (Cray pm_counters or RAPL), measure
P_idle (the node at rest) and P_max (every CPU busy) and write them as a calibration file
(the INI format of docs/energy.md) that the runtime's model and the advisor read.

    ecluse calibrate [--seconds 60] [--root /] [-o calibration.ini]
    (python -m ecluse.calibrate takes the same options)
"""
from __future__ import annotations

import argparse
import datetime
import multiprocessing
import os
import pathlib
import sys
import time
from typing import Callable, Optional

from . import calibration


class NoCounter(RuntimeError):
    """No energy counter this process can read: a calibration run cannot measure anything."""


def read_first_uint(path: pathlib.Path) -> int:
    """The leading unsigned integer of a counter file ("598732067 J 1599999 us" -> 598732067)."""
    text = path.read_text().split()
    if not text or not text[0].isdigit():
        raise ValueError(f"{path}: no leading integer in {path.read_text()!r}")
    return int(text[0])


def rapl_zones(root: pathlib.Path) -> list:
    """Package zones and their dram sub-zones, keyed by name (never by index); psys is left
    out since it overlaps the packages."""
    base = root / "sys/class/powercap"
    zones = []
    for zone in sorted(base.glob("intel-rapl:*")):
        name = (zone / "name").read_text().strip() if (zone / "name").exists() else ""
        parent = zone.name.count(":") == 1
        if (parent and name.startswith("package")) or (not parent and name == "dram"):
            zones.append(zone)
    return zones


class Counter:
    """Joules accumulated since creation, from pm_counters or RAPL (wraps handled)."""

    def __init__(self, root: str = "/"):
        self.root = pathlib.Path(root)
        pm = self.root / "sys/cray/pm_counters/energy"
        self.zones = [] if pm.exists() else rapl_zones(self.root)
        if pm.exists():
            self.source, self.quality, self.files = "pm_counters", "measured", [pm]
        elif self.zones:
            self.source, self.quality = "rapl", "measured-partial"
            self.files = [z / "energy_uj" for z in self.zones]
        else:
            raise NoCounter("no energy counter: neither /sys/cray/pm_counters nor RAPL "
                            "(/sys/class/powercap/intel-rapl:*) is readable here; write a "
                            "calibration file by hand (docs/energy.md) or use the default")
        self.last = self._raw()
        self.joules = 0.0

    def _raw(self) -> list:
        try:
            return [read_first_uint(f) for f in self.files]
        except PermissionError as e:
            raise NoCounter(f"{e.filename}: permission denied; run as root or make it "
                            "readable (sudo chmod a+r)") from e

    def _range(self, i: int) -> int:
        limit = self.zones[i] / "max_energy_range_uj" if self.zones else None
        return read_first_uint(limit) if limit and limit.exists() else 0

    def read(self) -> float:
        now = self._raw()
        scale = 1.0 if self.source == "pm_counters" else 1e-6
        for i, (prev, cur) in enumerate(zip(self.last, now)):
            delta = cur - prev if cur >= prev else cur + self._range(i) - prev
            self.joules += delta * scale
        self.last = now
        return self.joules


def _spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    x = 0
    while time.monotonic() < end:
        x += 1


def busy_all_cpus(seconds: float) -> None:
    """Every CPU spinning for `seconds` (one process each)."""
    workers = [multiprocessing.Process(target=_spin, args=(seconds,))
               for _ in range(os.cpu_count() or 1)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()


def measure_power(counter: Counter, seconds: float, activity: Callable[[float], None],
                  clock: Callable[[], float] = time.monotonic) -> float:
    """Average watts of the node while `activity(seconds)` runs."""
    start_j, start_t = counter.read(), clock()
    activity(seconds)
    return (counter.read() - start_j) / (clock() - start_t)


def calibration_text(idle: float, busy: float, counter: Counter, host: str,
                     today: Optional[str] = None) -> str:
    today = today or datetime.date.today().isoformat()
    section = calibration.Section("host", host, f"calibrated-{host}-{today}", idle, busy)
    return calibration.write_text([section], f"calibration run on {today}: {counter.source} "
                                             f"({counter.quality}), idle then every CPU busy")


DESCRIPTION = ("measure P_idle and P_max of this node with its energy counter (pm_counters or "
               "RAPL) and write them as a calibration file (docs/energy.md)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `ecluse calibrate` (and of python -m ecluse.calibrate)."""
    parser.add_argument("--seconds", type=float, default=60.0, help="of each phase (60)")
    parser.add_argument("--root", default=os.environ.get("ECLUSE_SYSFS_ROOT", "/"),
                        help="prefix of /sys and /proc ($ECLUSE_SYSFS_ROOT, else /)")
    parser.add_argument("-o", "--output", default="calibration.ini",
                        help="calibration file to write (calibration.ini)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="ecluse calibrate", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))


def run(args) -> int:
    """A calibration run with parsed options; 0, or 2 without a counter."""
    try:
        counter = Counter(args.root)
    except NoCounter as e:
        print(f"ecluse calibrate: {e}", file=sys.stderr)
        return 2
    if not args.seconds > 0:
        print(f"ecluse calibrate: --seconds {args.seconds:g} is not above 0", file=sys.stderr)
        return 2
    print(f"calibrating with {counter.source}: {args.seconds:g} s idle, then {args.seconds:g} s "
          f"with {os.cpu_count()} CPUs busy")
    idle = measure_power(counter, args.seconds, time.sleep)
    busy = measure_power(counter, args.seconds, busy_all_cpus)
    text = calibration_text(idle, busy, counter, calibration.host_name().split(".")[0])
    pathlib.Path(args.output).write_text(text)
    print(f"P_idle {idle:.1f} W, P_max {busy:.1f} W -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
