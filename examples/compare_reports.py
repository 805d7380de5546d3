#!/usr/bin/env python3
"""Prints run reports (docs/report.md) side by side: time, write cost, CPU per role, energy."""
import pathlib
import sys

# The package's report reader; from the checkout when the package is not installed.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
from ecluse.report import Energy, as_report, load  # noqa: E402

ROWS = [
    ("approach", lambda r: r.approach or "-"),
    ("ranks", lambda r: fmt(r.ranks, "d")),
    ("completion (s)", lambda r: fmt(r.completion_time_s, ".3f")),
    ("client write mean (ms)", lambda r: fmt(1e3 * mean_write(r), ".3f")),
    ("client write max (ms)", lambda r: fmt(1e3 * max_write(r), ".3f")),
    ("CPU % simulation", lambda r: cpu(r, "simulation")),
    ("CPU % dedicated-core", lambda r: cpu(r, "dedicated-core")),
    ("CPU % dedicated-node", lambda r: cpu(r, "dedicated-node")),
    ("energy (J)", lambda r: fmt(energy(r).joules, ".1f")),
    ("energy label", lambda r: energy(r).label(calibration=False)),
    ("average power (W)", lambda r: fmt(energy(r).average_power_w, ".1f")),
    ("I/O (MB/s/W)", lambda r: fmt(r.io_rate_mb_s_per_w, ".5f")),
]


def fmt(value, spec):
    return "-" if value is None else format(value, spec)


def energy(report):
    return report.energy or Energy()


def mean_write(report):
    """Client-visible write time per output iteration (iterations writing nothing left out)."""
    return report.iterations.client_write_s.mean or 0.0


def max_write(report):
    return report.iterations.client_write_s.max or 0.0


def cpu(report, role):
    r = report.roles.get(role)
    return fmt(r.cpu_usage_percent, ".1f") if r else "-"


def table(reports):
    """Rows of (label, value per report); reports as read by ecluse.report or as parsed JSON."""
    reports = [as_report(r) for r in reports]
    return [(label, [str(get(r)) for r in reports]) for label, get in ROWS]


def main(paths):
    reports = [load(p) for p in paths]
    width = max(len(label) for label, _ in ROWS)
    for label, values in table(reports):
        print(f"{label:<{width}}  " + "  ".join(f"{v:>14}" for v in values))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
