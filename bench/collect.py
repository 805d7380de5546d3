#!/usr/bin/env python3
"""Gathers the benchmarks' JSON (from bench/run.sh's temporary directory) into one document
with a summary of goals; with --table FILE, prints that document's key figures as Markdown."""
import datetime
import json
import pathlib
import sys


def load(directory, name):
    path = directory / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() and path.stat().st_size else None


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


def collect(directory, duration, quick):
    """Jitter runs are keyed <config>_<size>[_fsync], e.g. dc2_8MiB_fsync, in run order."""
    names = sorted(p.stem for p in directory.glob("*.busy"))
    runs = sorted(directory.glob("jitter_*.json"), key=lambda p: p.stat().st_mtime)
    jitter = {p.stem[len("jitter_"):]: load(directory, p.stem) for p in runs}
    wc, tp = load(directory, "write_cost"), load(directory, "throughput")
    return {
        "benchmark": "dedicated cores (bench/run.sh)",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "duration_s": int(duration),
        "quick": quick == "1",
        "machine": json.loads((directory / "machine.json").read_text()),
        "machine_busy_percent_before": {n: busy(directory, n) for n in names},
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


def table(doc):
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


if __name__ == "__main__":
    if sys.argv[1] == "--table":
        print(table(json.loads(pathlib.Path(sys.argv[2]).read_text())))
    else:
        print(json.dumps(collect(pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]), indent=1))
