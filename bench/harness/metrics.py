"""Figures of one run, and of the repetitions of one configuration.

Time and volume come from the workload's JSON line and the launcher's clock; CPU per role and
energy only from the Ecluse run report (docs/report.md). When a run has no report those stay
null: nothing here estimates them.
"""
import pathlib
import statistics
import sys

# The run report is read by the package's reader (python/ecluse/report.py) of this checkout.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
from ecluse.report import as_report, number  # noqa: E402

MB = 1e6


def ratio(numerator, denominator):
    if numerator is None or not denominator:
        return None
    return numerator / denominator


def report_cpu_by_role(report):
    """cpu_usage_percent of each role of the report, or None."""
    report = as_report(report)
    figures = {name: role.cpu_usage_percent for name, role in report.roles.items()
               if role.cpu_usage_percent is not None} if report else {}
    return figures or None


def report_energy(report):
    """The report's energy figures; every one None without a report or an energy section."""
    report = as_report(report)
    energy = report.energy if report else None
    if energy is None:
        return {"energy_j": None, "energy_source": None, "energy_quality": None,
                "energy_by_role_j": None, "average_power_w": None}
    return {"energy_j": energy.joules, "energy_source": energy.source,
            "energy_quality": energy.quality, "energy_by_role_j": dict(energy.by_role_j) or None,
            "average_power_w": energy.average_power_w}


def time_figures(summary, elapsed):
    """Completion is the launcher's clock (start to exit, servers' draining included), the
    same for every approach; jitter is how much the worst output exceeds the mean one."""
    mean, worst = number(summary.get("write_time_mean_s")), number(summary.get("write_time_max_s"))
    outputs = summary.get("outputs") or 0
    written = summary.get("bytes_written")
    per_output = written / outputs if isinstance(written, int) and outputs else None
    return {
        "completion_time_s": elapsed, "loop_time_s": number(summary.get("wall_time_s")),
        "write_time_mean_s": mean, "write_time_max_s": worst,
        "write_jitter_s": worst - mean if mean is not None and worst is not None else None,
        "bytes_written": written if isinstance(written, int) else None,
        "throughput_mb_s": ratio(written / MB if isinstance(written, int) else None, elapsed),
        "write_rate_mb_s": ratio(per_output / MB if per_output else None, mean),
    }


def run_metrics(spec, summary, report, elapsed, job_cpu, on_disk):
    """The metrics object of a successful run (schema: docs/harness.md)."""
    figures = time_figures(summary, elapsed)
    figures.update(bytes_on_disk=on_disk, job_cpu_s=job_cpu,
                   job_cpu_percent=100.0 * job_cpu / (elapsed * spec.ranks) if elapsed else 0.0,
                   report_available=report is not None,
                   cpu_percent_by_role=report_cpu_by_role(report))
    figures.update(report_energy(report))
    figures["mb_s_per_w"] = io_per_watt(report, figures["bytes_written"], figures["energy_j"])
    return figures


def io_per_watt(report, written, joules):
    """MB/s per W, which is MB per joule: the report's own figure (bytes and energy over the
    same Ecluse session), else the bytes over the report's energy; None without a report.
    Not the harness's throughput over the report's power: those cover different intervals."""
    report = as_report(report)
    figure = report.io_rate_mb_s_per_w if report else None
    if figure is not None:
        return figure
    return ratio(written / MB if written is not None else None, joules)


NUMERIC = ["completion_time_s", "loop_time_s", "write_time_mean_s", "write_time_max_s",
           "write_jitter_s", "bytes_written", "bytes_on_disk", "throughput_mb_s",
           "write_rate_mb_s", "job_cpu_s", "job_cpu_percent", "energy_j", "average_power_w",
           "mb_s_per_w"]


def reduce(runs, name, how):
    values = [r["metrics"][name] for r in runs if r["metrics"][name] is not None]
    return how(values) if values else None


def median_roles(runs):
    """Median CPU % of each role over the repetitions that reported it."""
    roles = {}
    for run in runs:
        for role, value in (run["metrics"]["cpu_percent_by_role"] or {}).items():
            roles.setdefault(role, []).append(value)
    return {role: statistics.median(values) for role, values in roles.items()} or None


def first_label(runs, name):
    return next((r["metrics"][name] for r in runs if r["metrics"][name]), None)


def aggregate(key, runs):
    """Median, min and max of every figure over the successful repetitions of a configuration."""
    first, ok = runs[0], [r for r in runs if r["status"] == "ok"]
    return {
        "key": key, "workload": first["workload"], "approach": first["approach"],
        "ranks": first["ranks"], "clients": first["clients"], "parameters": first["parameters"],
        "runs": len(runs), "ok": len(ok),
        "median": {n: reduce(ok, n, statistics.median) for n in NUMERIC},
        "min": {n: reduce(ok, n, min) for n in NUMERIC},
        "max": {n: reduce(ok, n, max) for n in NUMERIC},
        "energy_source": first_label(ok, "energy_source"),
        "energy_quality": first_label(ok, "energy_quality"),
        "cpu_percent_by_role": median_roles(ok), "ratio_to_tp": {},
    }


def group_key(aggregate_entry):
    """What the approaches are compared on: same workload, parameters and ranks."""
    params = sorted(aggregate_entry["parameters"].items())
    return (aggregate_entry["workload"], aggregate_entry["ranks"], tuple(params))


def add_ratios(aggregates):
    """Each configuration against Ecluse TP of the same workload, parameters and ranks: the
    comparison the report makes (ratios measured side by side, not absolute claims)."""
    tp = {group_key(a): a for a in aggregates if a["approach"] == "ecluse-tp"}
    for entry in aggregates:
        reference = tp.get(group_key(entry))
        for name in ("completion_time_s", "write_time_mean_s", "throughput_mb_s"):
            base = reference["median"][name] if reference else None
            entry["ratio_to_tp"][name] = ratio(entry["median"][name], base)


def aggregate_all(runs):
    grouped = {}
    for run in runs:
        grouped.setdefault(run["id"].rsplit("#", 1)[0], []).append(run)
    aggregates = [aggregate(key, group) for key, group in grouped.items()]
    add_ratios(aggregates)
    return aggregates
