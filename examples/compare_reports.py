#!/usr/bin/env python3
"""Prints run reports (docs/report.md) side by side: time, write cost, CPU per role, energy."""
import json
import sys

ROWS = [
    ("approach", lambda r: r["approach"]),
    ("ranks", lambda r: r["ranks"]),
    ("completion (s)", lambda r: f"{r['completion_time_s']:.3f}"),
    ("client write mean (ms)", lambda r: f"{1e3 * mean_write(r):.3f}"),
    ("client write max (ms)", lambda r: f"{1e3 * max_write(r):.3f}"),
    ("CPU % simulation", lambda r: cpu(r, "simulation")),
    ("CPU % dedicated-core", lambda r: cpu(r, "dedicated-core")),
    ("CPU % dedicated-node", lambda r: cpu(r, "dedicated-node")),
    ("energy (J)", lambda r: f"{r['energy']['joules']:.1f}"),
    ("energy label", lambda r: f"{r['energy']['source']}/{r['energy']['quality']}"),
    ("average power (W)", lambda r: f"{r['energy']['average_power_w']:.1f}"),
    ("I/O (MB/s/W)", lambda r: f"{r['io']['rate_mb_s_per_w']:.5f}"),
]


def mean_write(report):
    values = [i["client_write_s"]["mean"] for i in report["iterations"]]
    return sum(values) / len(values) if values else 0.0


def max_write(report):
    return max((i["client_write_s"]["max"] for i in report["iterations"]), default=0.0)


def cpu(report, role):
    r = report["roles"].get(role)
    return f"{r['cpu_usage_percent']:.1f}" if r else "-"


def table(reports):
    """Rows of (label, value per report)."""
    return [(label, [str(get(r)) for r in reports]) for label, get in ROWS]


def main(paths):
    reports = [json.load(open(p)) for p in paths]
    width = max(len(label) for label, _ in ROWS)
    for label, values in table(reports):
        print(f"{label:<{width}}  " + "  ".join(f"{v:>14}" for v in values))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
