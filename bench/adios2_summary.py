"""Puts the runs of bench/adios2.sh side by side: per group, size and approach the medians over
the repetitions (client-visible write time per iteration p50/p99, total time, bytes on disk),
the ratios against ADIOS2 BP5 asynchronous write and against the run without output, and the
goals of issue 18. Writes one JSON file and prints a Markdown table.

    python3 bench/adios2_summary.py --runs DIR --out FILE --command "bench/adios2.sh ..." \
        [--adios2-prefix DIR] [--mpiexec PATH] [--note TEXT] [--quiet-wait S]
"""
import argparse
import datetime
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys

GOAL_WRITE_VS_ADIOS2_ASYNC = 0.5
GOAL_TOTAL_VS_NO_OUTPUT = 1.05
GROUPS = {
    "one_client": "1 client rank (DC and DN: + 1 server rank); the second core is free for the "
                  "server or ADIOS2's write thread",
    "two_clients": "2 client ranks that all compute and write (same bytes per rank, twice per "
                   "iteration): aggregation and collective writes need 2 writers",
}


def last_json(path):
    """The program's JSON (pretty-printed): from the last line "{" of its stdout to the end."""
    lines = path.read_text().splitlines()
    starts = [i for i, line in enumerate(lines) if line == "{"]
    return json.loads("\n".join(lines[starts[-1]:])) if starts else None


def load_runs(directory):
    """{(group, approach, mib, rep): (json, busy percent before)} of every run that printed."""
    runs = {}
    for path in sorted(directory.glob("*.json")):
        group, approach, size, rep = path.stem.split("__")
        result = last_json(path)
        if result is None:
            continue
        busy = directory / f"{path.stem}.busy"
        busy_before = int(busy.read_text().strip() or -1) if busy.exists() else None
        runs[(group, approach, int(size.removesuffix("MiB")), int(rep.removeprefix("r")))] = (
            result, busy_before)
    return runs


def figures(result, busy):
    percentiles = result["write_ms_percentiles"]
    disk = result["bytes_on_disk"]
    other = result.get("interference", {}).get("other_cpu_fraction_of_machine")
    return {
        "write_p50_ms": percentiles["p50"], "write_p99_ms": percentiles["p99"],
        "write_max_ms": percentiles["max"], "write_mean_ms": percentiles["mean"],
        "compute_p50_ms": result["compute_ms"]["p50"],
        "loop_s": result["loop_s"], "end_to_end_s": result["end_to_end_s"],
        "bytes_on_disk": disk["bytes"], "allocated_bytes_on_disk": disk["allocated_bytes"],
        "files": disk["files"], "ranks": result["ranks"],
        "machine_busy_percent_before": busy, "interference_other_cpu_fraction": other,
    }


def median_of(reps):
    """Medians of every numeric figure over the repetitions, and each repetition's figures."""
    out = {}
    for key in reps[0]:
        values = [r[key] for r in reps if isinstance(r.get(key), (int, float))]
        out[key] = statistics.median(values) if values else None
    out["repetitions"] = len(reps)
    out["per_repetition"] = reps
    return out


def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def goal(value, target, applies=True, why=None):
    return {"value": value, "goal": f"<= {target}",
            "met": (value is not None and value <= target) if applies else None,
            **({"note": why} if why else {})}


def compare(table, compute_ms):
    """Ratios of one size's one_client group and the goals."""
    one = table.get("one_client", {})
    ratios, goals = {}, {}
    asyn = one.get("adios2-bp5-async")
    none = one.get("none")
    for name, entry in one.items():
        if asyn and name != "adios2-bp5-async":
            for q in ("p50", "p99"):
                ratios[f"write_{q}_{name}_over_adios2_async"] = ratio(
                    entry[f"write_{q}_ms"], asyn[f"write_{q}_ms"])
        if none and name != "none":
            ratios[f"end_to_end_{name}_over_none"] = ratio(entry["end_to_end_s"], none["end_to_end_s"])
            ratios[f"loop_{name}_over_none"] = ratio(entry["loop_s"], none["loop_s"])
    two = table.get("two_clients", {})
    if two.get("none"):
        for name, entry in two.items():
            if name != "none":
                ratios[f"two_clients_end_to_end_{name}_over_none"] = ratio(
                    entry["end_to_end_s"], two["none"]["end_to_end_s"])
    # Does the write fit in the compute phase? The in-process HDF5 store of an iteration (what
    # the DC server does) against the compute phase.
    store = one.get("hdf5-fpp", {}).get("write_p50_ms")
    fits = store is not None and store < compute_ms
    why = (f"in-process HDF5 write of an iteration p50 {store:.1f} ms against a {compute_ms} ms "
           "compute phase" if store is not None else "no hdf5-fpp run to tell")
    for who in ("dc", "dn"):
        for q in ("p50", "p99"):
            key = f"write_{q}_{who}_over_adios2_async"
            if key in ratios:
                goals[key] = goal(ratios[key], GOAL_WRITE_VS_ADIOS2_ASYNC)
    produce = one.get("none-produce")
    zero = one.get("dc-zero-copy")
    if produce and zero:
        # Both compute phases write the field: into the program's array, or into the buffer.
        ratios["end_to_end_dc-zero-copy_over_none-produce"] = ratio(
            zero["end_to_end_s"], produce["end_to_end_s"])
        ratios["loop_dc-zero-copy_over_none-produce"] = ratio(zero["loop_s"], produce["loop_s"])
        goals["end_to_end_dc-zero-copy_over_none-produce"] = goal(
            ratios["end_to_end_dc-zero-copy_over_none-produce"], GOAL_TOTAL_VS_NO_OUTPUT, fits,
            "zero copy: the field is produced in the shared buffer (ecluse_alloc), against a run "
            "without output whose compute phase writes the same field into its own array; " + why)
    if "end_to_end_dc_over_none" in ratios:
        goals["end_to_end_dc_over_none"] = goal(
            ratios["end_to_end_dc_over_none"], GOAL_TOTAL_VS_NO_OUTPUT, fits,
            ("the write fits in the compute phase: " if fits else
             "the write does not fit in the compute phase, the goal does not apply: ") + why)
        goals["loop_dc_over_none"] = goal(
            ratios.get("loop_dc_over_none"), GOAL_TOTAL_VS_NO_OUTPUT, fits,
            "the loop alone (compute + output calls), without the drain of the last iterations "
            "at finalize")
    return ratios, goals


def machine(mpiexec, note, quiet_wait):
    def first(path, key):
        try:
            return next((l.split(":", 1)[1].strip() for l in open(path) if l.startswith(key)), None)
        except OSError:
            return None
    root = pathlib.Path(__file__).resolve().parent.parent
    commit = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "unknown"
    dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    mpi = subprocess.run([mpiexec, "--version"], capture_output=True, text=True).stdout
    return {"nproc": os.cpu_count(), "cpu_model": first("/proc/cpuinfo", "model name"),
            "kernel": platform.release(), "mpi": (mpi.splitlines() or ["unknown"])[0],
            "commit": commit + ("+modified" if dirty else ""),
            "quiet_wait_s": quiet_wait, "operator_note": note or None,
            "open_mpi_binding_policy": os.environ.get("OMPI_MCA_hwloc_base_binding_policy")}


def markdown(summary):
    lines = []
    for size, groups in summary.items():
        for group in GROUPS:
            rows = groups.get(group)
            if not rows:
                continue
            lines += [f"\n{size}, {group}:\n",
                      "| approach | write p50 ms | write p99 ms | total s | loop s | MiB on disk | files |",
                      "|---|---|---|---|---|---|---|"]
            for name, f in rows.items():
                lines.append(f"| {name} | {f['write_p50_ms']:.2f} | {f['write_p99_ms']:.2f} | "
                             f"{f['end_to_end_s']:.3f} | {f['loop_s']:.3f} | "
                             f"{f['bytes_on_disk'] / 1048576:.1f} | {f['files']:.0f} |")
        lines.append("\ngoals:")
        for key, g in groups["goals"].items():
            value = "n/a" if g["value"] is None else f"{g['value']:.3f}"
            lines.append(f"- {key}: {value} (goal {g['goal']}, met: {g['met']})")
    return "\n".join(lines)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", required=True, type=pathlib.Path)
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument("--command", required=True)
    parser.add_argument("--adios2-prefix")
    parser.add_argument("--mpiexec", default="mpiexec")
    parser.add_argument("--note", default="")
    parser.add_argument("--quiet-wait", default=None)
    args = parser.parse_args(argv)
    runs = load_runs(args.runs)
    if not runs:
        raise SystemExit("adios2_summary: no run printed a result")
    summary, parameters = {}, {}
    for size in sorted({k[2] for k in runs}):
        groups = {}
        for group in GROUPS:
            names = sorted({k[1] for k in runs if k[0] == group and k[2] == size},
                           key=lambda n: (n != "none", n))
            table = {}
            for name in names:
                reps = [figures(*runs[k]) for k in sorted(runs) if k[:3] == (group, name, size)]
                table[name] = median_of(reps)
            if table:
                groups[group] = table
        any_run = next(r for k, (r, _) in runs.items() if k[2] == size)
        compute_ms = any_run["compute_ms_target"]
        parameters = {"iterations": any_run["iterations"], "compute_ms_target": compute_ms,
                      "work_units": any_run["work_units"]}
        groups["ratios"], groups["goals"] = compare(groups, compute_ms)
        summary[f"{size}MiB"] = groups
    adios2 = None
    if args.adios2_prefix:
        stamp = pathlib.Path(args.adios2_prefix) / "ecluse-build.json"
        adios2 = {"prefix": args.adios2_prefix,
                  **(json.loads(stamp.read_text()) if stamp.exists() else {})}
    result = {
        "benchmark": "adios2",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": args.command,
        "machine": machine(args.mpiexec, args.note, args.quiet_wait),
        "adios2_build": adios2,
        "parameters": {**parameters, "groups": GROUPS,
                       "write": "client-visible time per iteration, the slowest client: "
                                "ecluse_write + ecluse_end_iteration (DC, DN), BeginStep + Put + "
                                "EndStep (ADIOS2), create + write + close of the iteration's "
                                "file(s) (HDF5)",
                       "end_to_end_s": "first compute phase until everything is written "
                                       "(Ecluse: every rank past ecluse_finalize; ADIOS2: Close; "
                                       "HDF5: the last file closed)",
                       "durability": "page cache everywhere (no fsync)",
                       "statistic": "median over the repetitions of each run's p50 / p99 over "
                                    "iterations"},
        "summary": summary,
        "runs": {"__".join(map(str, k)): {"machine_busy_percent_before": busy, **r}
                 for k, (r, busy) in sorted(runs.items())},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.out}")
    print(markdown(summary))


if __name__ == "__main__":
    main(sys.argv[1:])
