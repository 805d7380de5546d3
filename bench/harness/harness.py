"""Side-by-side benchmark harness of Ecluse (issue 6): the proxy simulation and the VORPAL-IO
and VPIC-IO kernels under Ecluse TP, DC and DN and under the baselines without Ecluse (HDF5
file per process, HDF5 collective, ADIOS2 BP5), over output frequency x data volume x ranks,
with repetitions. Writes results.json (schema `ecluse-harness/1`, docs/harness.md), report.md
and PNG plots.

    .venv/bin/python bench/harness/harness.py [--matrix quick|full|smoke] [--repetitions N]
                                              [--out DIR] [--keep-runs]

Environment: ECLUSE_BUILD (build directory, default build), ECLUSE_MPIEXEC (default
mpiexec.openmpi), ECLUSE_ADIOS2_PYTHON (a Python that can import the adios2 wheel; default the
project's venv).
"""
import argparse
import datetime
import json
import os
import pathlib
import platform
import socket
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(1, str(pathlib.Path(__file__).resolve().parents[1]))  # bench/page_reporting.py

import metrics  # noqa: E402  (the harness's own modules, found through the lines above)
import page_reporting  # noqa: E402
import report  # noqa: E402
import runs  # noqa: E402
import schema  # noqa: E402

ROOT = runs.ROOT
validate = schema.validate
ECLUSE = ["ecluse-tp", "ecluse-dc", "ecluse-dn"]
BASELINES = ["hdf5-fpp", "hdf5-collective", "adios2-bp5-sync", "adios2-bp5-async"]


def proxy_cases(locals_, variables, every, iterations):
    return [{"local": l, "variables": v, "output_every": k, "iterations": iterations}
            for l in locals_ for v in variables for k in every]


# Each matrix: per workload, its parameter sets, the ranks to run them on and optionally the
# approaches (default: all); every approach runs every case unless runs.why_not says it cannot
# (the reason goes into `skipped`).
MATRICES = {
    # One tiny configuration per approach, for the tests (ADIOS2 writes VORPAL-IO data only).
    "smoke": {
        "proxy": (proxy_cases(["6x5x4"], [6], [2], 4), [4], ECLUSE + BASELINES[:2]),
        "vorpal-io": ([{"block": "6x5x4", "steps": 2}], [4], BASELINES[2:]),
    },
    # The demo's size: under 3 minutes on 2 cores, oversubscribed 2 times at most.
    "quick": {
        "proxy": (proxy_cases(["16x16x10"], [2, 6], [1, 3], 6), [2, 4]),
        "vorpal-io": ([{"block": "16x16x10", "steps": 4}], [4]),
        "vpic-io": ([{"particles": 4096, "steps": 3}], [4]),
    },
    # Volumes in the ratios of seed 002 (147/231/373 MB: 2, 4 and 6 fields), two frequencies.
    "full": {
        "proxy": (proxy_cases(["32x32x20", "64x64x40"], [2, 4, 6], [1, 5], 20), [2, 4, 8]),
        "vorpal-io": ([{"block": "50x50x30", "steps": 10}, {"block": "100x100x60", "steps": 10}],
                      [2, 4, 8]),
        "vpic-io": ([{"particles": 262144, "steps": 5}, {"particles": 1048576, "steps": 5}],
                    [2, 4, 8]),
    },
}

REPORT_NOTE = ("CPU per role and energy come from the Ecluse run report (docs/report.md) only; "
               "where a run left no report they are null and read \"report not available\". "
               "The baselines do not use Ecluse and have no such report.")


def specs_of(matrix, approaches):
    """Every configuration of a matrix, in order: workload, case, ranks, then approach."""
    specs = []
    for workload, (cases, ranks_list, *only) in matrix.items():
        chosen = [a for a in approaches if not only or a in only[0]]
        for case in cases:
            for ranks in ranks_list:
                specs += [runs.Spec(workload, dict(case), a, ranks) for a in chosen]
    return specs


def plan(specs, available):
    """Splits the configurations into those to run and those skipped, with the reason."""
    todo, skipped = [], []
    for spec in specs:
        reason = runs.why_not(spec)
        if reason is None and not available[spec.approach][0]:
            reason = f"unavailable: {available[spec.approach][1]}"
        if reason is None:
            todo.append(spec)
        else:
            skipped.append({"workload": spec.workload, "approach": spec.approach,
                            "ranks": spec.ranks, "parameters": spec.parameters,
                            "reason": reason})
    return todo, skipped


def first_line(command):
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return (result.stdout.strip().splitlines() or ["unknown"])[0]


def proc_field(path, name, default):
    try:
        for line in pathlib.Path(path).read_text().splitlines():
            if line.startswith(name):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return default


def machine(env, max_ranks):
    """The machine the figures come from: they mean little without it."""
    cores = os.cpu_count() or 1
    memory_kib = proc_field("/proc/meminfo", "MemTotal", "0 kB").split()[0]
    return {
        "cores": cores, "cpu_model": proc_field("/proc/cpuinfo", "model name", "unknown"),
        "memory_bytes": int(memory_kib) * 1024, "kernel": platform.release(),
        "hostname": socket.gethostname(), "mpiexec": env.mpiexec,
        "mpi_version": first_line([env.mpiexec, "--version"]),
        "python": platform.python_version(), "loadavg_at_start": os.getloadavg()[0],
        "max_ranks": max_ranks, "oversubscribed": max_ranks > cores,
    }


def clock(seconds):
    seconds = int(round(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


def progress(index, total, started, record, spec, repetitions):
    """One line per run: what ran, how it went, elapsed time and the estimated time left."""
    elapsed = time.monotonic() - started
    eta = elapsed / index * (total - index)
    if record["status"] == "ok":
        m = record["metrics"]
        outcome = (f"ok {m['completion_time_s']:.2f} s, write "
                   f"{(m['write_time_mean_s'] or 0) * 1e3:.2f} ms")
    else:
        outcome = "FAILED: " + record["error"].splitlines()[0][:100]
    width = len(str(total))
    print(f"[{index:>{width}}/{total}] {clock(elapsed)} elapsed, ETA {clock(eta)} | "
          f"{spec.describe()} rep {record['repetition'] + 1}/{repetitions}: {outcome}",
          flush=True)


def run_all(env, todo, repetitions, work_root):
    """Runs every configuration `repetitions` times, repetitions interleaved so that a slow
    phase of a shared machine does not fall on one approach only."""
    records, started = [], time.monotonic()
    total = len(todo) * repetitions
    for repetition in range(repetitions):
        for spec in todo:
            record = runs.run_one(env, spec, repetition, work_root, metrics.run_metrics)
            records.append(record)
            progress(len(records), total, started, record, spec, repetitions)
    return records


def approaches_section(available, approaches):
    return {name: {"kind": runs.APPROACHES[name]["kind"], "label": runs.APPROACHES[name]["label"],
                   "available": available[name][0], "reason": available[name][1],
                   "notes": runs.APPROACHES[name]["notes"]} for name in approaches}


def report_note(records):
    missing = [r for r in records if r["status"] == "ok"
               and runs.APPROACHES[r["approach"]]["kind"] == "ecluse"
               and not r["metrics"]["report_available"]]
    if missing:
        return f"Ecluse run report not available for {len(missing)} run(s). {REPORT_NOTE}"
    return REPORT_NOTE


def benchmark(matrix_name, repetitions, out_dir, approaches=None, matrix=None, env=None):
    """Runs a matrix and writes results.json, report.md and the plots into out_dir; returns
    the results document."""
    env = env or runs.Environment.from_os()
    approaches = approaches or ECLUSE + BASELINES
    out = pathlib.Path(out_dir).resolve()  # runs work in their own directories
    work_root = out / "runs"
    work_root.mkdir(parents=True, exist_ok=True)
    available = {a: runs.availability(env, a) for a in approaches}
    todo, skipped = plan(specs_of(matrix or MATRICES[matrix_name], approaches), available)
    max_ranks = max([s.ranks for s in todo], default=0)
    print(f"{len(todo)} configurations x {repetitions} repetition(s), {len(skipped)} not run; "
          f"build {env.build}", flush=True)
    started = time.monotonic()
    with page_reporting.paused() as memory:
        print(memory, flush=True)
        records = run_all(env, todo, repetitions, work_root)
    document = {
        "schema": schema.SCHEMA_ID,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "matrix": matrix_name, "repetitions": repetitions, "build": str(env.build),
        "duration_s": time.monotonic() - started,
        "machine": {**machine(env, max_ranks), "free_page_reporting": memory},
        "approaches": approaches_section(available, approaches), "runs": records,
        "skipped": skipped, "aggregates": metrics.aggregate_all(records),
        "report_note": report_note(records),
    }
    save(document, out)
    return document


def save(document, out):
    """Writes results.json (refusing a document that breaks its own schema), then the report."""
    errors = validate(document)
    if errors:
        raise ValueError("results.json would not match its schema:\n" + "\n".join(errors))
    (out / "results.json").write_text(json.dumps(document, indent=1) + "\n")
    report.write(document, out)
    if not any(out.joinpath("runs").iterdir()):
        out.joinpath("runs").rmdir()


def comparison_row(entry):
    m = entry["median"]
    write = f"{report.fmt(m['write_time_mean_s'], 1e3)}/{report.fmt(m['write_time_max_s'], 1e3)}"
    return (f"{entry['approach']:<17}{report.fmt(m['completion_time_s']):>8}{write:>20}"
            f"{report.fmt(m['throughput_mb_s'], digits=1):>9}  {report.roles_text(entry):<34.34}"
            f"{report.energy_text(entry):<32.32}{report.fmt(m['mb_s_per_w'], digits=4):>8}")


def comparison_table(document):
    """The demo's table: per configuration, one line per approach (medians of repetitions)."""
    head = (f"{'approach':<17}{'time s':>8}{'write mean/max ms':>20}{'MB/s':>9}  "
            f"{'CPU % per role':<34}{'energy J (source, quality)':<32}{'MB/s/W':>8}")
    lines = []
    for workload in dict.fromkeys(a["workload"] for a in document["aggregates"]):
        for label, entries in report.configurations(document["aggregates"], workload).items():
            lines += [f"{workload} {label}", head, "-" * len(head)]
            lines += [comparison_row(e) for e in entries] + [""]
    return "\n".join(lines)


# The demo: one problem, a 192x192x40 grid of 6 fields, 60 steps, output every 10 (71 MB per
# output), solved on 2 ranks, so that at most 2 processes are busy on a 2-CPU machine (times of
# oversubscribed runs say nothing of speed): TP (2 clients), DC (1 client and a dedicated core)
# and DN (1 client node and a dedicated node, virtual nodes of 1 rank): the approaches differ
# only in how the 2 cores are used.
DEMO_GRID = "192x192x40"
DEMO_CASE = {"global": DEMO_GRID, "variables": 6, "output_every": 10, "iterations": 60}
DEMO_RANKS = 2
DEMO_MATRIX = {"proxy": ([DEMO_CASE], [DEMO_RANKS])}
DEMO_APPROACHES = ["ecluse-tp", "ecluse-dc", "ecluse-dn-1"]


def run_demo(out_dir, repetitions=3):
    """Runs the proxy under Ecluse TP, DC and DN, prints the comparison table, writes
    results.json, report.md and the plots into out_dir; returns the path of results.json."""
    out = pathlib.Path(out_dir)
    document = benchmark("demo", repetitions, out, approaches=DEMO_APPROACHES,
                         matrix=DEMO_MATRIX)
    print()
    print(comparison_table(document))
    print(f"\n{document['report_note']}")
    print(f"results: {out / 'results.json'}\nreport:  {out / 'report.md'} (and PNG plots beside "
          "it)")
    return out / "results.json"


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matrix", choices=sorted(MATRICES), default="quick")
    parser.add_argument("--repetitions", type=int, default=None,
                        help="runs of each configuration (default: 1 quick, 3 full)")
    parser.add_argument("--out", default=None, help="default: bench/results/harness-<matrix>")
    parser.add_argument("--profile", default=None,
                        help="a profile from `ecluse profile`: show the model's prediction "
                             "beside each Ecluse measurement (ecluse validate)")
    parser.add_argument("--keep-runs", action="store_true",
                        help="keep each run's working directory (output files) under OUT/runs")
    args = parser.parse_args(argv)
    if args.repetitions is None:
        args.repetitions = 3 if args.matrix == "full" else 1
    if args.repetitions < 1:
        parser.error("--repetitions must be at least 1")
    return args


def predictions(document, out, profile):
    """`ecluse validate` of the Ecluse runs' reports against a profile (docs/model.md): each
    prediction beside its measurement, appended to report.md and returned as text."""
    folder = out / "reports"
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, run in enumerate(document["runs"]):
        if run.get("report"):
            path = folder / f"{i:03d}-{run['approach']}.json"
            path.write_text(json.dumps(run["report"]))
            paths.append(str(path))
    if not paths:
        return "no Ecluse run report to compare with the model"
    ecluse = pathlib.Path(sys.executable).with_name("ecluse")
    result = subprocess.run([str(ecluse), "validate", *paths, "--profile", str(profile),
                             "--plots", str(out)], capture_output=True, text=True)
    text = result.stdout if result.returncode == 0 else "ecluse validate failed:\n" + result.stderr
    with open(out / "report.md", "a") as f:
        f.write("\n## Predictions beside measurements (`ecluse validate`)\n\n```\n" + text +
                "```\n")
    return text


def main(argv):
    args = parse(argv)
    out = pathlib.Path(args.out or ROOT / "bench" / "results" / f"harness-{args.matrix}")
    env = runs.Environment.from_os()
    env.keep_runs = args.keep_runs
    document = benchmark(args.matrix, args.repetitions, out, env=env)
    print()
    print(comparison_table(document))
    if args.profile:
        print("\n" + predictions(document, out, args.profile))
    failed = sum(r["status"] == "failed" for r in document["runs"])
    print(f"\n{len(document['runs'])} runs, {failed} failed; results: {out / 'results.json'}, "
          f"report: {out / 'report.md'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
