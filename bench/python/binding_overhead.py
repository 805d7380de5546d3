"""Cost of the Python binding against the C call, side by side in one session.

    python bench/python/binding_overhead.py [--build DIR] [--output FILE] [--quick]

Launches itself on 2 ranks (1 client + 1 dedicated core, null store: the transport alone, as
bench/dc_write_cost.cpp does) and, on the client, times interleaved for each block size:
`ecluse_write` in C (bench/python/c_timer.c, loaded with ctypes into this very process and
session), `Session.write` and `ecluse._native.write` of the same NumPy array; then alloc+commit
both ways (no copy: the time must not grow with the size). Prints JSON: per size the medians,
the ratio Python / C and the extra microseconds per call. Goals (issue 12): ratio <= 1.1 from
1 MiB, extra <= 5 us for small blocks.
"""
import argparse
import ctypes
import json
import os
import pathlib
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
KIB, MIB = 1024, 1024 * 1024
SIZES = [4 * KIB, 64 * KIB, 1 * MIB, 4 * MIB, 16 * MIB]
RATIO_GOAL, EXTRA_US_GOAL, RATIO_FROM = 1.1, 5.0, 1 * MIB


def size_name(n):
    return f"{n // MIB}MiB" if n >= MIB else f"{n // KIB}KiB"


def config(sizes):
    layouts = "".join(f'<layout name="l{size_name(n)}" type="double" dimensions="{n // 8}"/>'
                      f'<variable name="v{size_name(n)}" layout="l{size_name(n)}" store="null"/>'
                      for n in sizes)
    buffer = 4 * max(sizes) + 64 * KIB * len(sizes)
    return (f'<simulation name="pybench" xmlns="urn:ecluse:config:1"><architecture>'
            f'<domains count="1"/><dedicated cores="1" nodes="0"/><buffer size="{buffer}"/>'
            f'<virtual-nodes ranks-per-node="2"/></architecture><data>{layouts}</data>'
            f'<storage><store name="null" type="null"/></storage>'
            f'<log LogLevel="warning"/></simulation>')


def median(samples):
    s = sorted(samples)
    return s[len(s) // 2] if len(s) % 2 else 0.5 * (s[len(s) // 2 - 1] + s[len(s) // 2])


def percentile(samples, p):
    s = sorted(samples)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


class Client:
    """The measurements, on the client rank of a running session."""

    def __init__(self, session, ctimer, quick):
        from ecluse import _native
        self.session, self.native, self.ctimer = session, _native, ctimer
        self.quick = quick
        self.seconds = ctypes.c_double()
        self.shuffle = random.Random(12).shuffle  # the order of the paths changes every round

    def c_write(self, name, address):
        status = self.ctimer.ecluse_bench_time_write(name, ctypes.c_void_p(address),
                                                     ctypes.byref(self.seconds))
        if status:
            raise RuntimeError(f"ecluse_write failed with status {status}")
        return self.seconds.value

    def c_alloc_commit(self, name):
        if self.ctimer.ecluse_bench_time_alloc_commit(name, ctypes.byref(self.seconds)):
            raise RuntimeError("ecluse_alloc/commit failed")
        return self.seconds.value

    @staticmethod
    def timed(call, *args):
        start = time.perf_counter()
        call(*args)
        return time.perf_counter() - start

    def reps(self, size):
        most, least = (301, 15) if self.quick else (2001, 41)
        return max(least, min(most, (256 if self.quick else 1024) * MIB // size))

    def write_row(self, size):
        import numpy as np
        name = f"v{size_name(size)}"
        array = np.random.default_rng(size).random(size // 8)  # touched, not constant
        encoded, address = name.encode(), array.ctypes.data
        paths = {
            "c": lambda: self.c_write(encoded, address),
            "python": lambda: self.timed(self.session.write, name, array),
            "native": lambda: self.timed(self.native.write, name, array, 0),
            "c_timed_like_python": lambda: self.timed(self.c_write, encoded, address),
        }
        samples = {k: [] for k in paths}
        for i in range(4 + self.reps(size)):
            order = list(paths)
            self.shuffle(order)
            for path in order:
                t = paths[path]()
                self.session.end_iteration()
                if i >= 4:  # the first rounds warm the buffer's pages and the caches
                    samples[path].append(t)
        return self.summarize(size, samples, "write")

    def alloc_row(self, size):
        name = f"v{size_name(size)}"

        def python():
            start = time.perf_counter()
            self.session.alloc(name)
            self.session.commit(name)
            return time.perf_counter() - start

        paths = {"c": lambda: self.c_alloc_commit(name.encode()), "python": python}
        samples = {k: [] for k in paths}
        for i in range(4 + (51 if self.quick else 201)):
            order = list(paths)
            self.shuffle(order)
            for path in order:
                t = paths[path]()
                self.session.end_iteration()
                if i >= 4:
                    samples[path].append(t)
        return self.summarize(size, samples, "alloc_commit")

    @staticmethod
    def summarize(size, samples, what):
        us = {k: median(v) * 1e6 for k, v in samples.items()}
        row = {"size": size, "size_name": size_name(size), "reps": len(samples["c"])}
        for k, v in us.items():
            row[f"{k}_us"] = round(v, 3)
            row[f"{k}_p90_us"] = round(percentile(samples[k], 90) * 1e6, 3)
        row["ratio"] = round(us["python"] / us["c"], 4)
        row["extra_us"] = round(us["python"] - us["c"], 3)
        if what == "write":
            row["native_ratio"] = round(us["native"] / us["c"], 4)
            # The C call reached through ctypes and timed in Python, like Session.write: what is
            # left of the gap is the binding, not where the clock stops.
            row["ratio_same_timer"] = round(us["python"] / us["c_timed_like_python"], 4)
        return row


def timer_overhead_us():
    samples = []
    for _ in range(10001):
        start = time.perf_counter()
        samples.append(time.perf_counter() - start)
    return round(median(samples) * 1e6, 3)


def worker(args):
    import numpy as np
    from mpi4py import MPI
    import ecluse
    ctimer = ctypes.CDLL(str(pathlib.Path(args.build) / "bench" / "python" /
                             "libecluse_bench_ctimer.so"))
    sizes = SIZES[:4] if args.quick else SIZES
    with ecluse.Session(config(sizes), MPI.COMM_WORLD) as session:
        if not session.is_client:
            return
        client = Client(session, ctimer, args.quick)
        writes = [client.write_row(n) for n in sizes]
        allocs = [client.alloc_row(n) for n in sizes]
        session.stop()
        sent = session.statistic("dc.sent_blocks")
    print("JSON " + json.dumps(report(writes, allocs, sent, np)), flush=True)


def report(writes, allocs, sent, np):
    big = [r["ratio"] for r in writes if r["size"] >= RATIO_FROM]
    small = [r["extra_us"] for r in writes if r["size"] < RATIO_FROM]
    alloc_us = [r["python_us"] for r in allocs]
    return {
        "benchmark": "python_binding_overhead",
        "configuration": "dedicated cores: 1 client + 1 server on a virtual node of 2, null store",
        "method": "medians of interleaved calls (order shuffled every round), each followed by "
                  "end_iteration (not timed); c: timed in C around ecluse_write; python: "
                  "time.perf_counter around Session.write (timer cost included); native: the "
                  "same around ecluse._native.write; c_timed_like_python: the C function "
                  "reached through ctypes, timed like python (control for where the clock "
                  "stops: a preemption just after the call counts there but not in c)",
        "machine": {"nproc": os.cpu_count(), "python": platform.python_version(),
                    "numpy": np.__version__, "processor": processor()},
        "python_timer_overhead_us": timer_overhead_us(),
        "write": writes,
        "alloc_commit": allocs,
        "blocks_sent": sent,
        "summary": {
            "write_ratio_max_from_1MiB": max(big) if big else None,
            "write_ratio_goal": RATIO_GOAL,
            "write_ratio_goal_met": bool(big) and max(big) <= RATIO_GOAL,
            "write_extra_us_max_below_1MiB": max(small) if small else None,
            "write_extra_us_goal": EXTRA_US_GOAL,
            "write_extra_us_goal_met": bool(small) and max(small) <= EXTRA_US_GOAL,
            "write_ratio_same_timer_max_from_1MiB": max(
                (r["ratio_same_timer"] for r in writes if r["size"] >= RATIO_FROM), default=None),
            "alloc_commit_python_us_min_max": [min(alloc_us), max(alloc_us)],
        },
    }


def processor():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def cpu_times():
    """(busy, total) jiffies of the whole machine."""
    with open("/proc/stat") as f:
        values = [int(x) for x in f.readline().split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    return sum(values) - idle, sum(values)


def busy_percent(since):
    busy, total = cpu_times()
    return round(100.0 * (busy - since[0]) / max(1, total - since[1]), 1)


def wait_for_quiet(limit):
    """Waits up to `limit` seconds for a second in which the machine is under 25% busy (as
    bench/run.sh does); returns the busy percentage of the last second seen."""
    deadline = time.monotonic() + limit
    while True:
        before = cpu_times()
        time.sleep(1)
        busy = busy_percent(before)
        if busy < 25 or time.monotonic() > deadline:
            return busy


def launch(args):
    """Runs this file on 2 ranks in a scratch directory; prints (and saves) the client's JSON."""
    build = pathlib.Path(args.build)
    mpiexec = os.environ.get("ECLUSE_MPIEXEC") or shutil.which("mpiexec.openmpi") or "mpiexec"
    path = [str(ROOT / "python"), str(build / "python"), os.environ.get("PYTHONPATH", "")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path), OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")
    command = [mpiexec, "-n", "2", sys.executable, str(pathlib.Path(__file__).resolve()),
               "--worker", "--build", str(build)] + (["--quick"] if args.quick else [])
    quiet = wait_for_quiet(float(os.environ.get("ECLUSE_BENCH_QUIET_WAIT", 60)))
    with tempfile.TemporaryDirectory() as scratch:
        before = cpu_times()
        result = subprocess.run(command, cwd=scratch, env=env, capture_output=True, text=True)
        during = busy_percent(before)
    lines = [line for line in result.stdout.splitlines() if line.startswith("JSON ")]
    if result.returncode != 0 or not lines:
        sys.exit(f"benchmark failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    results = json.loads(lines[-1][5:])
    # The job itself keeps one of the machine's cores busy (the client; the server sleeps).
    results["machine"].update(busy_percent_before=quiet, busy_percent_during=during)
    text = json.dumps(results, indent=2)
    print(text)
    if args.output:
        pathlib.Path(args.output).write_text(text + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.environ.get("ECLUSE_BUILD", ROOT / "build"))
    parser.add_argument("--output", help="also write the JSON here")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions, up to 4 MiB")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    worker(args) if args.worker else launch(args)


if __name__ == "__main__":
    main()
