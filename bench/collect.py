#!/usr/bin/env python3
"""Gathers the benchmarks' JSON (from bench/run.sh's temporary directory) into one document per
suite (dc, approaches) with a summary of goals and ratios; with --table FILE, prints that
document's key figures as Markdown."""
import datetime
import json
import pathlib
import sys

# Run reports are read by the package's reader (python/ecluse/report.py) of this checkout.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
from ecluse.report import read as read_report  # noqa: E402


def load(directory, name):
    """A program's JSON; text printed before it (e.g. the run report's summary that Ecluse
    prints at finalize) is skipped."""
    path = directory / f"{name}.json"
    lines = path.read_text().splitlines(keepends=True) if path.exists() else []
    for i, line in enumerate(lines):
        if line.startswith("{"):
            return json.loads("".join(lines[i:]))
    return None


def run_report(directory, name):
    """Ecluse's own run report of a program's last session (copied by run.sh), or None."""
    return read_report(str(directory / f"{name}.report"))


def store_ms(report):
    """Median over the iterations that stored blocks of the time to store one (the server's in
    DC and DN, the client's own store in TP), in ms: the report's p50, within 4.4%."""
    p50 = report.iterations.server_store_s.p50 if report else None
    return 1e3 * p50 if p50 is not None else None


def server_phases(report):
    """Wall seconds of the servers' phases (gather = receiving, store, idle), summed over
    servers; None in TP."""
    role = report.server_role() if report else None
    return {k: v.wall_s for k, v in role.phases.items()} if role else None


def busy(directory, name):
    path = directory / f"{name}.busy"
    return int(path.read_text()) if path.exists() and path.read_text().strip() else None


def write_cost_summary(wc):
    out = {}
    for store, result in (wc or {}).get("stores", {}).items():
        out[store] = {scenario: result[scenario] for scenario in ("hot", "after_compute")}
    return out


def jitter_summary(jitter):
    return {
        key: {
            "output_p50_ms": r["output_ms"]["p50"],
            "output_p99_ms": r["output_ms"]["p99"],
            "p99_over_p50": r["output_ms"]["p99_over_p50"],
            "output_max_ms": r["output_ms"]["max"],
            "ms_per_iteration": 1e3 * r["loop_s"] / r["iterations"],
        }
        for key, r in jitter.items()
        if r
    }


def throughput_summary(tp):
    return {mode: {"ratio": r["ratio"], "pass": r["pass"], "ratio_of_best": r["ratio_of_best"],
                   "GBps": r["GBps"]}
            for mode, r in (tp or {}).get("modes", {}).items()}


def run_header(benchmark, directory, duration, quick, names):
    """What every collected document starts with: which suite, when, how long, on what machine
    and how busy it was before each program."""
    return {
        "benchmark": benchmark,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "duration_s": int(duration),
        "quick": quick == "1",
        "machine": json.loads((directory / "machine.json").read_text()),
        "machine_busy_percent_before": {n: busy(directory, n) for n in names},
    }


def collect_dc(directory, duration, quick):
    """Jitter runs are keyed <config>_<size>[_fsync], e.g. dc2_8MiB_fsync, in run order."""
    names = sorted(p.stem for p in directory.glob("*.busy"))
    runs = sorted(directory.glob("jitter_*.json"), key=lambda p: p.stat().st_mtime)
    jitter = {p.stem[len("jitter_"):]: load(directory, p.stem) for p in runs}
    wc, tp = load(directory, "write_cost"), load(directory, "throughput")
    return {
        **run_header("dedicated cores (bench/run.sh)", directory, duration, quick, names),
        "summary": {
            "write_cost": write_cost_summary(wc),
            "jitter": jitter_summary(jitter),
            "throughput": throughput_summary(tp),
        },
        "write_cost": wc,
        "jitter": jitter,
        "throughput": tp,
    }


def fmt(value, digits=2):
    return "-" if value is None else f"{value:.{digits}f}"


def table_dc(doc):
    lines = ["| block | memcpy µs | write/memcpy null | write/memcpy HDF5 | "
             "alloc+commit µs null | alloc+commit µs HDF5 |",
             "|---|---|---|---|---|---|"]
    stores = (doc.get("write_cost") or {}).get("stores", {})
    null, hdf5 = stores.get("null", {}).get("sizes", []), stores.get("hdf5", {}).get("sizes", [])
    for i, n in enumerate(null):
        h = hdf5[i] if i < len(hdf5) else None
        pair = lambda s, key, d=2: (f"{fmt(s['hot'][key], d)} ({fmt(s['after_compute'][key], d)})"
                                    if s else "-")
        lines.append(f"| {n['size_name']} | {fmt(n['hot']['memcpy_us'], 1)} | "
                     f"{pair(n, 'write_ratio')} | {pair(h, 'write_ratio')} | "
                     f"{pair(n, 'alloc_commit_us', 1)} | {pair(h, 'alloc_commit_us', 1)} |")
    lines += ["", "hot (after compute): calls back to back (each after a 16 MiB compute sweep)", "",
              "| run | MiB/client | durability | output p50 ms | p99 ms | p99/p50 | max ms | "
              "ms/iteration |", "|---|---|---|---|---|---|---|---|"]
    labels = {"dc2": "DC 1 client + 1 core", "tp1": "TP 1 client", "tp2": "TP 2 clients"}
    for key, r in doc["summary"]["jitter"].items():
        config, size, *fsync = key.split("_")
        lines.append(f"| {labels.get(config, config)} | {size[:-3]} | "
                     f"{'fsync' if fsync else 'page cache'} | {fmt(r['output_p50_ms'], 1)} | "
                     f"{fmt(r['output_p99_ms'], 1)} | {fmt(r['p99_over_p50'])} | "
                     f"{fmt(r['output_max_ms'], 1)} | {fmt(r['ms_per_iteration'], 1)} |")
    lines += ["", "| durability | raw GB/s | Ecluse DC GB/s | DC/raw (best/best) | "
              "Ecluse TP GB/s | raw like store GB/s |", "|---|---|---|---|---|---|"]
    for mode, r in doc["summary"]["throughput"].items():
        g = r["GBps"]
        lines.append(f"| {mode} | {fmt(g['raw'])} | {fmt(g['ecluse_dc'])} | {fmt(r['ratio'])} "
                     f"({fmt(r['ratio_of_best'])}) | {fmt(g['ecluse_tp'])} | "
                     f"{fmt(g['raw_like_store'])} |")
    return "\n".join(lines)


def median(values):
    values = sorted(v for v in values if v is not None)
    if not values:
        return None
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def ratio(a, b):
    return None if a is None or not b else a / b


def compare_entry(runs):
    """One approach at one size: each figure is the median over repetitions (each repetition is
    one mpiexec of approach_compare); the repetitions' own figures are kept beside it."""
    pick = lambda f: median([f(r) for r in runs])
    return {
        "label": runs[0]["label"],
        "ranks": runs[0]["ranks"],
        "repetitions": len(runs),
        "write_mean_ms": pick(lambda r: r["write_ms"]["mean"]),
        "write_p50_ms": pick(lambda r: r["write_ms"]["p50"]),
        "write_p95_ms": pick(lambda r: r["write_ms"]["p95"]),
        "write_max_ms": pick(lambda r: r["write_ms"]["max"]),
        "write_stddev_ms": pick(lambda r: r["write_ms"]["stddev"]),
        "write_max_over_p50": pick(lambda r: r["write_ms"]["max_over_p50"]),
        "write_first_ms": pick(lambda r: r["write_first_ms"]),
        "memcpy_p50_ms": pick(lambda r: r["memcpy_ms"]["p50"]),
        "write_over_memcpy": pick(lambda r: r["write_over_memcpy_p50"]),
        "end_to_end_s": pick(lambda r: r["end_to_end_s"]),
        "ms_per_iteration": pick(lambda r: r["ms_per_iteration"]),
        "compute_p50_ms": pick(lambda r: r["compute_ms"]["p50"]),
        "store_p50_ms": pick(lambda r: r.get("store_p50_ms")),
        "credit_waits": pick(lambda r: (r.get("dn") or {}).get("credit_waits_all_clients")),
        "server_phases_s": runs[0].get("server_phases_s"),
        "other_cpu_fraction": pick(lambda r: r["interference"]["other_cpu_fraction_of_machine"]),
        "per_repetition_write_p50_ms": [r["write_ms"]["p50"] for r in runs],
        "per_repetition_end_to_end_s": [r["end_to_end_s"] for r in runs],
    }


def compare_ratios(entry):
    """Side by side: each approach against its own memcpy baseline, then against each other
    (from the median write times and the end-to-end times)."""
    w = {a: (entry.get(a) or {}).get("write_p50_ms") for a in ("tp", "dc", "dn")}
    e = {a: (entry.get(a) or {}).get("end_to_end_s") for a in ("tp", "dc", "dn")}
    out = {f"{a}_over_memcpy": (entry.get(a) or {}).get("write_over_memcpy")
           for a in ("tp", "dc", "dn")}
    for a, b in (("tp", "dn"), ("tp", "dc"), ("dn", "dc")):
        out[f"write_{a}_over_{b}"] = ratio(w[a], w[b])
        out[f"end_to_end_{a}_over_{b}"] = ratio(e[a], e[b])
    return out


def compare_summary(runs):
    """runs: {compare_<approach>_<size>_r<rep>: json}; keyed by size, then approach."""
    groups = {}
    for name, r in runs.items():
        if r:
            _, approach, size, _ = name.split("_")
            groups.setdefault(size, {}).setdefault(approach, []).append(r)
    out = {}
    for size in sorted(groups, key=lambda s: float(s[:-3])):
        entry = {a: compare_entry(groups[size][a]) for a in ("tp", "dc", "dn") if a in groups[size]}
        entry["ratios"] = compare_ratios(entry)
        out[size] = entry
    return out


def dn_throughput_summary(doc):
    return {mode: {"ratio": r["ratio"], "server_ratio": r["server_ratio"], "pass": r["pass"],
                   "GBps": r["GBps"], "dn_over_tp": r["ecluse_dn_over_ecluse_tp"]}
            for mode, r in (doc or {}).get("modes", {}).items()}


def ratio_effect_summary(runs):
    out = {}
    for name, r in runs.items():
        if not r:
            continue
        server = r["dn"]["servers"][0]
        out[name[len("ratio_"):]] = {
            "clients_per_server": r["clients"],
            "buffer_iterations": r["buffer_iterations"],
            "oversubscribed": r["oversubscribed"],
            "receive_memory_bytes": server["dn.receive_memory_bytes"],
            "peak_held_bytes": server["dn.peak_held_bytes"],
            "peak_within_receive_memory": r["dn"]["peak_held_within_receive_memory"],
            "window_bytes_per_client": r["dn"]["window_bytes_per_client"],
            "credit_waits": r["dn"]["credit_waits_all_clients"],
            "writes": r["clients"] * r["iterations"],
            "credit_wait_seconds": r["dn"]["credit_wait_seconds_all_clients"],
            "write_p50_ms": r["write_ms"]["p50"],
            "write_max_ms": r["write_ms"]["max"],
            "end_to_end_s": r["end_to_end_s"],
            "ms_per_iteration": r["ms_per_iteration"],
            "store_p50_ms": r.get("store_p50_ms"),
        }
    return out


def collect_approaches(directory, duration, quick):
    names = sorted(p.stem for p in directory.glob("*.busy"))
    by_order = sorted(directory.glob("*.json"), key=lambda p: p.stat().st_mtime)
    runs = {p.stem: load(directory, p.stem) for p in by_order}
    for name, r in runs.items():
        if r and name.startswith(("compare_", "ratio_")):
            report = run_report(directory, name)
            r["store_p50_ms"] = store_ms(report)
            r["server_phases_s"] = server_phases(report)
    compare = {n: r for n, r in runs.items() if n.startswith("compare_")}
    ratios = {n: r for n, r in runs.items() if n.startswith("ratio_")}
    tput = load(directory, "dn_throughput")
    return {
        **run_header("approaches: TP vs DC vs DN (bench/run.sh --suite approaches)", directory,
                     duration, quick, names),
        "summary": {
            "compare": compare_summary(compare),
            "dn_throughput": dn_throughput_summary(tput),
            "ratio_effect": ratio_effect_summary(ratios),
        },
        "compare": compare,
        "dn_throughput": tput,
        "ratio_effect": ratios,
    }


def table_compare(summary):
    lines = ["| block | approach | write p50 ms | mean | p95 | max | stddev | max/p50 | "
             "memcpy p50 ms | write/memcpy | store p50 ms | end-to-end s |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for size, entry in summary.items():
        for a in ("tp", "dc", "dn"):
            r = entry.get(a)
            if r:
                lines.append(
                    f"| {size} | {a.upper()} | {fmt(r['write_p50_ms'])} | "
                    f"{fmt(r['write_mean_ms'])} | {fmt(r['write_p95_ms'])} | "
                    f"{fmt(r['write_max_ms'])} | {fmt(r['write_stddev_ms'])} | "
                    f"{fmt(r['write_max_over_p50'])} | {fmt(r['memcpy_p50_ms'])} | "
                    f"{fmt(r['write_over_memcpy'])} | {fmt(r['store_p50_ms'], 1)} | "
                    f"{fmt(r['end_to_end_s'], 3)} |")
    lines += ["", "| block | TP/DN write | TP/DC write | DN/DC write | TP/DN end-to-end | "
              "DN/DC end-to-end |", "|---|---|---|---|---|---|"]
    for size, entry in summary.items():
        q = entry["ratios"]
        lines.append(f"| {size} | {fmt(q['write_tp_over_dn'])} | {fmt(q['write_tp_over_dc'])} | "
                     f"{fmt(q['write_dn_over_dc'])} | {fmt(q['end_to_end_tp_over_dn'])} | "
                     f"{fmt(q['end_to_end_dn_over_dc'])} |")
    return lines


def table_approaches(doc):
    s = doc["summary"]
    lines = table_compare(s["compare"])
    lines += ["", "| durability | raw GB/s | DN end-to-end GB/s | DN server GB/s | DN/raw | "
              "DN server/raw | TP GB/s |", "|---|---|---|---|---|---|---|"]
    for mode, r in s["dn_throughput"].items():
        g = r["GBps"]
        lines.append(f"| {mode} | {fmt(g['raw'])} | {fmt(g['ecluse_dn_end_to_end'])} | "
                     f"{fmt(g['ecluse_dn_server'])} | {fmt(r['ratio'])} | "
                     f"{fmt(r['server_ratio'])} | {fmt(g['ecluse_tp'])} |")
    lines += ["", "oversubscribed (more ranks than cores): behaviour, not speed", "",
              "| clients:server | buffer | receive MiB | peak held MiB | credit waits / writes | "
              "wait s (all clients) | write p50 ms | write max ms | end-to-end s |",
              "|---|---|---|---|---|---|---|---|---|"]
    for r in s["ratio_effect"].values():
        lines.append(f"| {r['clients_per_server']}:1 | {r['buffer_iterations']}x | "
                     f"{fmt(r['receive_memory_bytes'] / 2**20, 0)} | "
                     f"{fmt(r['peak_held_bytes'] / 2**20, 0)} | "
                     f"{r['credit_waits']:.0f} / {r['writes']} | "
                     f"{fmt(r['credit_wait_seconds'])} | {fmt(r['write_p50_ms'], 1)} | "
                     f"{fmt(r['write_max_ms'], 1)} | {fmt(r['end_to_end_s'])} |")
    return "\n".join(lines)


if __name__ == "__main__":
    if sys.argv[1] == "--table":
        doc = json.loads(pathlib.Path(sys.argv[2]).read_text())
        print(table_approaches(doc) if doc["benchmark"].startswith("approaches") else table_dc(doc))
    else:
        suite = sys.argv[4] if len(sys.argv) > 4 else "dc"
        collect = collect_approaches if suite == "approaches" else collect_dc
        print(json.dumps(collect(pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]), indent=1))
