"""A long run keeps rank 0's memory and its report bounded (issue 14, item 9): 100,000 TP
iterations on 2 ranks, a tiny variable written every 100th iteration (and at a few irregular
gaps) to the null store. The report's summaries are those of the opt-in trace, computed here
from the trace's own numbers: count, sum, min and max exactly, quantiles within a bucket."""
import functools
import json
import math
import operator
import subprocess

import pytest

from mpirun import BUILD, child_env, mpiexec
from ecluse import report

PROGRAM = BUILD / "tests" / "report" / "long_run_program"
ITERATIONS = 100000
WIDTH = 2 ** (1 / 16)   # a histogram bucket: the report's quantiles are within it


def run(tmp_path, iterations, every, trace=True):
    env = child_env()
    if trace:
        env["ECLUSE_TRACE"] = str(tmp_path / "trace-{rank}.csv")
    result = subprocess.run([mpiexec(), "-n", "2", str(PROGRAM), str(iterations), str(every)],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    memory = json.loads(next(l for l in result.stdout.splitlines() if l.startswith("{")))
    return result, memory, tmp_path / "long-report.json"


def in_order_sum(values):
    """The sum in the order the library adds (no compensation)."""
    return functools.reduce(operator.add, values, 0.0)


def nearest_rank(sorted_values, q):
    return sorted_values[max(1, math.ceil(q * len(sorted_values))) - 1]


# Which trace rows and column make each distribution of the report.
SERIES = {
    "client_write_s": (lambda r: r.ended and r.bytes > 0, "write_s"),
    "client_quiet_s": (lambda r: r.ended and r.bytes == 0, "write_s"),
    "client_bytes": (lambda r: r.ended and r.bytes > 0, "bytes"),
    "server_store_s": (lambda r: r.stored and r.stored_blocks > 0, "store_s"),
    "server_store_empty_s": (lambda r: r.stored and r.stored_blocks == 0, "store_s"),
}


def check_distribution(name, summary, traces):
    keep, column = SERIES[name]
    per_rank = [[getattr(r, column) for r in rows if keep(r)] for rows in traces]
    values = sorted(v for rank in per_rank for v in rank)
    assert summary.count == len(values) > 0, name
    # Each rank sums its own iterations in order, rank 0 then adds the ranks in rank order.
    assert summary.sum == in_order_sum(in_order_sum(rank) for rank in per_rank), name
    assert (summary.min, summary.max) == (values[0], values[-1]), name
    assert summary.mean == pytest.approx(sum(values) / len(values), rel=1e-9), name
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    assert summary.stddev == pytest.approx(sd, rel=1e-6, abs=1e-15), name
    for q, reported in ((0.5, summary.p50), (0.9, summary.p90), (0.99, summary.p99)):
        exact = nearest_rank(values, q)
        assert max(exact, reported) / min(exact, reported) <= WIDTH * (1 + 1e-12), (name, q)
    slowest = max(sum(rank) / len(rank) for rank in per_rank if rank)
    assert summary.slowest_rank_mean == pytest.approx(slowest, rel=1e-9), name


def test_a_long_run_keeps_memory_and_report_bounded_and_matches_its_trace(tmp_path):
    result, memory, path = run(tmp_path, ITERATIONS, 100)
    growth_mb = (memory["hwm_end_kb"] - memory["rss_start_kb"]) / 1024
    assert growth_mb < 20, f"rank 0 grew by {growth_mb:.1f} MB over {ITERATIONS} iterations"
    assert path.stat().st_size < 1_000_000
    r = report.load(str(path))
    files = r.trace_files()
    assert files == (str(tmp_path / "trace-0.csv"), str(tmp_path / "trace-1.csv"))
    traces = [report.read_trace(f) for f in files]
    assert [[row.iteration for row in rows] for rows in traces] == [list(range(ITERATIONS))] * 2
    for name in SERIES:
        check_distribution(name, getattr(r.iterations, name), traces)
    # Counters: every iteration ended; outputs every 100 and right after every 7th of them.
    outputs = [row.iteration for row in traces[0] if row.bytes > 0]
    assert outputs == sorted({i for i in range(ITERATIONS) if i % 100 == 0 or
                              (i % 100 == 1 and i % 700 == 1)})
    it = r.iterations
    assert (it.count, it.first, it.last) == (ITERATIONS, 0, ITERATIONS - 1)
    o = it.outputs
    assert (o.count, o.first, o.last, o.every, o.every_max) == (
        len(outputs), 0, outputs[-1], 1, 100)
    assert it.store_errors == 0 and it.failed_iterations.count == 0
    # The summary's write mean counts only the iterations that wrote (issue 15).
    writes = [row.write_s for rows in traces for row in rows if row.bytes > 0]
    assert (f"client write per output iteration mean {sum(writes) / len(writes) * 1e3:.3f} ms, "
            f"max {max(writes) * 1e3:.3f} ms ({len(outputs)} of {ITERATIONS} iteration(s) "
            "wrote)") in result.stdout


def test_without_a_trace_nothing_per_iteration_is_written(tmp_path):
    _, _, path = run(tmp_path, 1000, 10, trace=False)
    data = json.loads(path.read_text())
    assert data["trace"] is None
    assert report.load(str(path)).trace_files() == ()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["long-report.json"]
    wrote = {i for i in range(1000) if i % 10 == 0 or (i % 10 == 1 and i % 70 == 1)}
    assert (data["iterations"]["count"], data["iterations"]["outputs"]["count"]) == (1000,
                                                                                    len(wrote))
