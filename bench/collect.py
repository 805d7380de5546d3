#!/usr/bin/env python3
"""Gathers the benchmarks' JSON (from bench/run.sh's temporary directory) into one document per
suite (dc, approaches) with a summary of goals and ratios; with --table FILE, prints that
document's key figures as Markdown; with --performance FILE..., the figures of issue 18 with
their goals, before and after; with --before-after FILE, every summary figure before and after.

    collect.py DIRECTORY DURATION QUICK SUITE      # one suite's results document (stdout)
    collect.py --table FILE                        # its tables (Markdown)
    collect.py --performance [--json] [--baseline FILE]... [--results DIR] FILE...
    collect.py --before-after [--baseline FILE] FILE
"""
import dataclasses
import datetime
import json
import pathlib
import sys
from typing import Callable, Optional

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


def idle_cpu_percent(report):
    """CPU the servers used while waiting for messages: their `idle` phase's thread CPU time over
    its wall time, in % of one core (Damaris 1.7.1's dedicated cores poll: 83-88%)."""
    role = report.server_role() if report else None
    idle = role.phases.get("idle") if role else None
    if not idle or not idle.wall_s or idle.cpu_s is None:
        return None
    return 100 * idle.cpu_s / idle.wall_s


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
            "server_idle_cpu_percent": r.get("server_idle_cpu_percent"),
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
    runs = sorted((p for p in directory.glob("jitter_*.json") if p.stem != "jitter_warmup"),
                  key=lambda p: p.stat().st_mtime)
    jitter = {p.stem[len("jitter_"):]: load(directory, p.stem) for p in runs}
    for key, r in jitter.items():
        if r and key.startswith("dc"):
            r["server_idle_cpu_percent"] = idle_cpu_percent(run_report(directory, f"jitter_{key}"))
    wc, tp = load(directory, "write_cost"), load(directory, "throughput")
    return {
        **run_header("dedicated cores (bench/run.sh)", directory, duration, quick, names),
        "suite": "dc",
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
        "server_idle_cpu_percent": pick(lambda r: r.get("server_idle_cpu_percent")),
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


def small_blocks_summary(doc):
    """Per case of bench/small_blocks: DC and DN microseconds per block and their ratio."""
    if not doc:
        return {}
    return {f"{c['blocks']}x{c['block_bytes']:.0f}B": {
        "dc_us_per_block": c["dc_us_per_block"], "dn_us_per_block": c["dn_us_per_block"],
        "dn_over_dc": c["dn_over_dc"]} for c in doc["cases"]}


def collect_approaches(directory, duration, quick):
    names = sorted(p.stem for p in directory.glob("*.busy"))
    by_order = sorted(directory.glob("*.json"), key=lambda p: p.stat().st_mtime)
    runs = {p.stem: load(directory, p.stem) for p in by_order}
    for name, r in runs.items():
        if r and name.startswith(("compare_", "ratio_")):
            report = run_report(directory, name)
            r["store_p50_ms"] = store_ms(report)
            r["server_phases_s"] = server_phases(report)
            r["server_idle_cpu_percent"] = idle_cpu_percent(report)
    compare = {n: r for n, r in runs.items() if n.startswith("compare_")}
    ratios = {n: r for n, r in runs.items() if n.startswith("ratio_")}
    tput = load(directory, "dn_throughput")
    small = load(directory, "small_blocks")
    return {
        **run_header("approaches: TP vs DC vs DN (bench/run.sh --suite approaches)", directory,
                     duration, quick, names),
        "suite": "approaches",
        "summary": {
            "compare": compare_summary(compare),
            "dn_throughput": dn_throughput_summary(tput),
            "ratio_effect": ratio_effect_summary(ratios),
            "small_blocks": small_blocks_summary(small),
        },
        "compare": compare,
        "dn_throughput": tput,
        "small_blocks": small,
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
    small = s.get("small_blocks") or {}
    if small:
        lines += ["", "| blocks x bytes (null store) | DC us/block | DN us/block | DN/DC |",
                  "|---|---|---|---|"]
        for case, r in small.items():
            lines.append(f"| {case} | {fmt(r['dc_us_per_block'])} | {fmt(r['dn_us_per_block'])} | "
                         f"{fmt(r['dn_over_dc'])} |")
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


# The figures of issue 18: one specification per row of the performance table. A figure reads
# one suite's results document (dc, approaches, adios2: bench/results/<suite>-<date>.json); a
# figure whose program did not run, or whose key is missing, is "not measured".


def get(doc, *keys):
    """doc[k0][k1]...; in a list, a key is an index or a "field=value" match; None when any step
    is missing."""
    for key in keys:
        if isinstance(doc, dict):
            doc = doc.get(key)
        elif isinstance(doc, list):
            doc = list_item(doc, key)
        else:
            return None
        if doc is None:
            return None
    return doc


def list_item(items, key):
    if isinstance(key, int):
        return items[key] if -len(items) <= key < len(items) else None
    field, _, wanted = str(key).partition("=")
    return next((e for e in items if isinstance(e, dict) and str(e.get(field)) == wanted), None)


def worst(values):
    """The largest of the numbers (every goal checked with it is an upper bound)."""
    values = [v for v in values if isinstance(v, (int, float))]
    return max(values) if values else None


WRITE_COST_STORES = ("null", "hdf5")


def per_store(doc, *keys):
    """dc_write_cost's figure `keys` (below stores.<store>) for each store that has it."""
    return {s: v for s in WRITE_COST_STORES
            if (v := get(doc, "write_cost", "stores", s, *keys)) is not None}


def worst_store(*keys):
    """The worst store's value (the goal holds for each store); the detail names each."""
    return lambda doc: worst(per_store(doc, *keys).values())


def store_detail(*keys):
    return lambda doc: ", ".join(f"{s} {fmt(v)}" for s, v in per_store(doc, *keys).items())


def alloc_detail(scenario):
    """Each store's worst alloc + commit, and beside it the worst of the calls that found room
    at once with the number of calls that waited for the server to release a block, and the
    floor: the worst ecluse_get_iteration in the same state (what any call costs there)."""
    def detail(doc):
        parts = []
        for s, v in per_store(doc, scenario, "worst_alloc_commit_us").items():
            quick = get(doc, "write_cost", "stores", s, scenario,
                        "worst_alloc_commit_us_without_wait")
            waits = get(doc, "write_cost", "stores", s, scenario, "alloc_commit_buffer_waits")
            extra = (f" ({fmt(quick)} without the {int(waits)} calls that waited for room)"
                     if quick is not None and waits else "")
            floor = get(doc, "write_cost", "stores", s, scenario, "floor_minimal_call_us")
            if floor is not None:
                extra += f"; a call that does nothing {fmt(floor)} there"
            parts.append(f"{s} {fmt(v)}{extra}")
        return ", ".join(parts)
    return detail


def size_figure(size, scenario, key):
    return ("sizes", f"size_name={size}", scenario, key)


def jitter_detail(doc):
    r = get(doc, "jitter", "dc2_8MiB", "output_ms")
    return f"p99 {fmt(r['p99'])} ms / p50 {fmt(r['p50'])} ms, 8 MiB" if r else ""


def smallest_block(doc, approach, key):
    """approach_compare's figure at the smallest block (where the server idles longest)."""
    compare = get(doc, "summary", "compare") or {}
    return get(compare, next(iter(compare), None), approach, key) if compare else None


def adios2_sized(doc, key):
    """(size, ratio) of the first block size of bench/adios2.sh's summary that has the ratio."""
    for size, entry in (get(doc, "summary") or {}).items():
        if isinstance(get(entry, "ratios", key), (int, float)):
            return size, entry["ratios"][key]
    return None, None


def adios2_ratio(key):
    return lambda doc: adios2_sized(doc, key)[1]


def adios2_size(key):
    return lambda doc: adios2_sized(doc, key)[0] or ""


@dataclasses.dataclass(frozen=True)
class Figure:
    name: str                                  # as in issue 18's table
    suite: str                                 # the results file: dc, approaches, adios2
    source: str                                # program and JSON key, for the reader
    value: Callable[[dict], Optional[float]]   # the figure from that suite's document
    goal: str                                  # "<=" or ">="
    threshold: float
    unit: str = ""
    damaris: str = "–"                         # Damaris 1.7.1 in issue 18's table
    detail: Callable[[dict], str] = lambda doc: ""


PERFORMANCE = [
    Figure("client write / memcpy, 1 MiB block, hot", "dc",
           "dc_write_cost stores.*.sizes[1MiB].hot.write_ratio (worst store)",
           worst_store(*size_figure("1MiB", "hot", "write_ratio")), "<=", 1.1,
           damaris="1.31–1.56", detail=store_detail(*size_figure("1MiB", "hot", "write_ratio"))),
    Figure("the same right after a compute phase (cold caches)", "dc",
           "dc_write_cost stores.*.sizes[1MiB].after_compute.write_ratio (worst store)",
           worst_store(*size_figure("1MiB", "after_compute", "write_ratio")), "<=", 1.2,
           detail=store_detail(*size_figure("1MiB", "after_compute", "write_ratio"))),
    Figure("alloc + commit per call (zero copy), hot", "dc",
           "dc_write_cost stores.*.hot.worst_alloc_commit_us (worst size and store)",
           worst_store("hot", "worst_alloc_commit_us"), "<=", 5, "µs",
           "29–34 µs; up to 2.3 ms when the client gets ahead",
           alloc_detail("hot")),
    Figure("alloc + commit per call (zero copy), after compute", "dc",
           "dc_write_cost stores.*.after_compute.worst_alloc_commit_us (worst size and store)",
           worst_store("after_compute", "worst_alloc_commit_us"), "<=", 5, "µs",
           detail=alloc_detail("after_compute")),
    *[Figure(f"`end_iteration` per call, {mib} MiB written", "dc",
             f"dc_write_cost stores.*.sizes[{mib}MiB].hot.end_iteration_us (worst store)",
             worst_store(*size_figure(f"{mib}MiB", "hot", "end_iteration_us")), "<=", 10, "µs",
             damaris, store_detail(*size_figure(f"{mib}MiB", "hot", "end_iteration_us")))
      for mib, damaris in ((1, "0.8–1.1 µs"), (16, "5–11 µs"), (64, "12–19 µs"))],
    Figure("DC server write throughput / raw sequential write with fsync", "dc",
           "dc_throughput modes.fsync.ratio", lambda d: get(d, "throughput", "modes", "fsync",
                                                             "ratio"), ">=", 0.9),
    Figure("DN server write throughput / raw sequential write with fsync", "approaches",
           "dn_throughput modes.fsync.server_ratio",
           lambda d: get(d, "dn_throughput", "modes", "fsync", "server_ratio"), ">=", 0.9),
    Figure("client-visible write time p99 / p50 per iteration (DC)", "dc",
           "dc_jitter (DC, 8 MiB, page cache) output_ms.p99_over_p50",
           lambda d: get(d, "jitter", "dc2_8MiB", "output_ms", "p99_over_p50"), "<=", 1.5,
           detail=jitter_detail),
    Figure("dedicated core CPU while idle", "dc",
           "dc_jitter (DC, 8 MiB) run report: servers' idle phase CPU / wall",
           lambda d: get(d, "jitter", "dc2_8MiB", "server_idle_cpu_percent"), "<=", 1, "%",
           "83–88%"),
    Figure("dedicated node CPU while idle", "approaches",
           "approach_compare DN run report: servers' idle phase CPU / wall (smallest block)",
           lambda d: smallest_block(d, "dn", "server_idle_cpu_percent"), "<=", 1, "%"),
    Figure("DC client-visible write time / ADIOS2 BP5 async write", "adios2",
           "adios2_summary summary.<size>.ratios.write_p50_dc_over_adios2_async",
           adios2_ratio("write_p50_dc_over_adios2_async"), "<=", 0.5,
           detail=adios2_size("write_p50_dc_over_adios2_async")),
    Figure("DN client-visible write time / ADIOS2 BP5 async write", "adios2",
           "adios2_summary summary.<size>.ratios.write_p50_dn_over_adios2_async",
           adios2_ratio("write_p50_dn_over_adios2_async"), "<=", 0.5,
           detail=adios2_size("write_p50_dn_over_adios2_async")),
    Figure("DC total time with output / without output", "adios2",
           "adios2_summary summary.<size>.ratios.end_to_end_dc_over_none",
           adios2_ratio("end_to_end_dc_over_none"), "<=", 1.05,
           detail=adios2_size("end_to_end_dc_over_none")),
    Figure("DC total time with output / without output, zero copy (both produce the field)",
           "adios2",
           "adios2_summary summary.<size>.ratios.end_to_end_dc-zero-copy_over_none-produce",
           adios2_ratio("end_to_end_dc-zero-copy_over_none-produce"), "<=", 1.05,
           detail=adios2_size("end_to_end_dc-zero-copy_over_none-produce")),
]


def measure(figure, doc):
    """The figure's value, or None ("not measured") when the document or a key is missing."""
    if not doc:
        return None
    try:
        value = figure.value(doc)
    except (KeyError, IndexError, TypeError, ZeroDivisionError):
        return None
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def verdict(figure, value):
    if value is None:
        return "not measured"
    met = value <= figure.threshold if figure.goal == "<=" else value >= figure.threshold
    return "yes" if met else "no"


def detail_of(figure, doc):
    try:
        return figure.detail(doc) if doc else ""
    except (KeyError, IndexError, TypeError):
        return ""


SUITES = {"dc": "dedicated cores", "approaches": "approaches", "adios2": "adios2"}


def suite_of(path, doc=None):
    """dc, approaches or adios2, from the document's `suite` or `benchmark`, else the file name
    (<suite>-<date>.json)."""
    if doc and doc.get("suite") in SUITES:
        return doc["suite"]
    benchmark = str((doc or {}).get("benchmark", ""))
    for suite, prefix in SUITES.items():
        if benchmark.startswith(prefix):
            return suite
    name = pathlib.Path(path).name.split("-")[0]
    return name if name in SUITES else None


def read_json(path):
    try:
        doc = json.loads(pathlib.Path(path).read_text())
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def results_of(directory, suite):
    """The suite's results files in `directory`, oldest first (the names sort by date)."""
    return sorted(pathlib.Path(directory).glob(f"{suite}-*.json"))


def default_baseline(path, doc, directory):
    """The newest results file of the same suite older than `path`, of the same kind of run
    (--quick or not) when there is one."""
    suite = suite_of(path, doc)
    earlier = [p for p in results_of(directory, suite) if p.name < pathlib.Path(path).name]
    same = [p for p in earlier if (read_json(p) or {}).get("quick") == (doc or {}).get("quick")]
    return (same or earlier or [None])[-1]


class Source:
    """One suite's results document as the table uses it: its file and how it is labelled."""

    def __init__(self, path, label):
        self.path = pathlib.Path(path) if path else None
        self.doc = read_json(path) if path else None
        self.label = label

    def describe(self):
        if not self.doc:
            return "none"
        return f"{self.path.name} ({self.label}{', quick' if self.doc.get('quick') else ''})"


def sources(files, baselines, directory):
    """{suite: (now, before)}: the files of this run; an adios2 suite not run this time comes
    from the newest committed result; before: --baseline of that suite, else the newest earlier
    file."""
    out = {}
    for f in files:
        doc = read_json(f)
        if suite_of(f, doc):
            out[suite_of(f, doc)] = Source(f, "this run")
    committed = results_of(directory, "adios2")
    if "adios2" not in out and committed:
        date = read_json(committed[-1]) or {}
        when = str(date.get("date", committed[-1].stem[len("adios2-"):]))[:10]
        out["adios2"] = Source(committed[-1], f"committed result, {when}")
    given = {suite_of(b, read_json(b)): b for b in baselines}
    pairs = {}
    for suite, now in out.items():
        before = given.get(suite) or default_baseline(now.path, now.doc, directory)
        pairs[suite] = (now, Source(before, "baseline"))
    return pairs


def performance(pairs):
    """One row per figure of PERFORMANCE: value, goal, met, before (from the baseline)."""
    rows = []
    for f in PERFORMANCE:
        now, before = pairs.get(f.suite, (Source(None, ""), Source(None, "")))
        value = measure(f, now.doc)
        rows.append({
            "figure": f.name, "value": value, "unit": f.unit,
            "goal": f"{f.goal} {f.threshold:g}{' ' + f.unit if f.unit else ''}",
            "met": verdict(f, value), "before": measure(f, before.doc),
            "detail": detail_of(f, now.doc), "damaris_1_7_1": f.damaris, "source": f.source,
            "from": now.describe() if now.doc else "not run",
        })
    return rows


GOAL_SIGNS = {"<=": "≤", ">=": "≥"}


def shown(value, unit):
    if value is None:
        return "not measured"
    return f"{value:.2f}{' ' + unit if unit else ''}" if abs(value) < 100 else \
        f"{value:.0f}{' ' + unit if unit else ''}"


def table_performance(rows, pairs):
    lines = ["| figure | now | before | goal | met | Damaris 1.7.1 | source |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        now = shown(r["value"], r["unit"]) + (f" ({r['detail']})" if r["detail"] else "")
        goal = r["goal"].replace("<=", GOAL_SIGNS["<="]).replace(">=", GOAL_SIGNS[">="])
        before = "–" if r["before"] is None else shown(r["before"], r["unit"])
        lines.append(f"| {r['figure']} | {now} | {before} | {goal} | {r['met']} | "
                     f"{r['damaris_1_7_1']} | {r['source']} |")
    lines.append("")
    for suite, (now, before) in pairs.items():
        lines.append(f"- {suite}: now {now.describe()}; before {before.describe()}")
    return "\n".join(lines)


def numeric_leaves(doc, prefix=""):
    """{dotted key: number} of every number in a (nested) summary; lists are left out."""
    if isinstance(doc, dict):
        out = {}
        for k, v in doc.items():
            out.update(numeric_leaves(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    if isinstance(doc, (int, float)) and not isinstance(doc, bool):
        return {prefix: doc}
    return {}


def table_before_after(now, before):
    """Every number of the two documents' `summary`, side by side (no regression elsewhere)."""
    a = numeric_leaves((before.doc or {}).get("summary"))
    b = numeric_leaves((now.doc or {}).get("summary"))
    lines = [f"before: {before.describe()}; after: {now.describe()}", "",
             "| figure | before | after | after/before |", "|---|---|---|---|"]
    for key in list(dict.fromkeys([*b, *a])):
        lines.append(f"| {key} | {fmt(a.get(key), 3)} | {fmt(b.get(key), 3)} | "
                     f"{fmt(ratio(b.get(key), a.get(key)))} |")
    return "\n".join(lines)


def options(argv):
    """--baseline FILE (repeatable), --results DIR, --json; the rest are files."""
    baselines, files, directory, as_json = [], [], RESULTS, False
    args = iter(argv)
    for a in args:
        if a == "--baseline":
            baselines.append(next(args))
        elif a == "--results":
            directory = pathlib.Path(next(args))
        elif a == "--json":
            as_json = True
        else:
            files.append(a)
    return baselines, files, directory, as_json


RESULTS = pathlib.Path(__file__).resolve().parent / "results"


def main_performance(argv):
    baselines, files, directory, as_json = options(argv)
    pairs = sources(files, baselines, directory)
    rows = performance(pairs)
    if as_json:
        print(json.dumps({"performance": rows, "sources": {
            s: {"now": str(n.path) if n.doc else None, "now_label": n.label,
                "before": str(b.path) if b.doc else None} for s, (n, b) in pairs.items()}},
            indent=1))
    else:
        print(table_performance(rows, pairs))


def main_before_after(argv):
    baselines, files, directory, _ = options(argv)
    now = Source(files[0], "this run")
    before = baselines[0] if baselines else default_baseline(now.path, now.doc, directory)
    print(table_before_after(now, Source(before, "baseline")))


if __name__ == "__main__":
    if sys.argv[1] == "--performance":
        main_performance(sys.argv[2:])
    elif sys.argv[1] == "--before-after":
        main_before_after(sys.argv[2:])
    elif sys.argv[1] == "--table":
        doc = json.loads(pathlib.Path(sys.argv[2]).read_text())
        print(table_approaches(doc) if doc["benchmark"].startswith("approaches") else table_dc(doc))
    else:
        suite = sys.argv[4] if len(sys.argv) > 4 else "dc"
        collect = collect_approaches if suite == "approaches" else collect_dc
        print(json.dumps(collect(pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]), indent=1))
