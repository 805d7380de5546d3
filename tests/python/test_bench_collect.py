"""bench/collect.py's performance table (issue 18) on small results files: one row per figure
with its goal, met / not met / not measured, the before value from the baseline (the newest
earlier file of the suite, or --baseline), the committed ADIOS2 result when ADIOS2 did not run,
the servers' idle CPU taken from a run report, and every summary figure before and after."""
import importlib.util
import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
COLLECT = ROOT / "bench" / "collect.py"
spec = importlib.util.spec_from_file_location("collect", COLLECT)
collect = importlib.util.module_from_spec(spec)
spec.loader.exec_module(collect)

# Issue 18's table, then the goals added below it.
FIGURES = [
    "client write / memcpy, 1 MiB block, hot",
    "the same right after a compute phase (cold caches)",
    "alloc + commit per call (zero copy), hot",
    "alloc + commit per call (zero copy), after compute",
    "`end_iteration` per call, 1 MiB written",
    "`end_iteration` per call, 16 MiB written",
    "`end_iteration` per call, 64 MiB written",
    "DC server write throughput / raw sequential write with fsync",
    "DN server write throughput / raw sequential write with fsync",
    "client-visible write time p99 / p50 per iteration (DC)",
    "dedicated core CPU while idle",
    "dedicated node CPU while idle",
    "DC client-visible write time / ADIOS2 BP5 async write",
    "DN client-visible write time / ADIOS2 BP5 async write",
    "DC total time with output / without output",
    "DC total time with output / without output, zero copy (both produce the field)",
]


def size(name, hot_ratio, cold_ratio, end_us):
    return {"size_name": name,
            "hot": {"write_ratio": hot_ratio, "end_iteration_us": end_us},
            "after_compute": {"write_ratio": cold_ratio, "end_iteration_us": 2 * end_us}}


def store(ratio_1mib, end_1mib, alloc_hot, alloc_cold, with_64=True):
    sizes = [size("1MiB", ratio_1mib, ratio_1mib + 0.2, end_1mib),
             size("16MiB", 1.0, 1.1, end_1mib + 1)]
    if with_64:
        sizes.append(size("64MiB", 1.0, 1.1, end_1mib + 2))
    return {"hot": {"worst_alloc_commit_us": alloc_hot},
            "after_compute": {"worst_alloc_commit_us": alloc_cold}, "sizes": sizes}


def dc_doc(quick, null_ratio, hdf5_ratio, fsync_ratio, idle=None, with_64=True):
    jitter = {"output_ms": {"p50": 1.0, "p99": 1.4, "p99_over_p50": 1.4}}
    if idle is not None:
        jitter["server_idle_cpu_percent"] = idle
    return {"benchmark": "dedicated cores (bench/run.sh)", "suite": "dc", "quick": quick,
            "summary": {"throughput": {"fsync": {"ratio": fsync_ratio}}},
            "write_cost": {"stores": {"null": store(null_ratio, 3.0, 4.0, 6.0, with_64),
                                      "hdf5": store(hdf5_ratio, 8.0, 4.5, 7.0, with_64)}},
            "jitter": {"dc2_8MiB": jitter},
            "throughput": {"modes": {"fsync": {"ratio": fsync_ratio}}}}


def write(directory, name, doc):
    path = directory / name
    path.write_text(json.dumps(doc))
    return path


@pytest.fixture
def results(tmp_path):
    """A results directory: two earlier dc runs (a full one, then a quick one) and this quick
    run; no approaches run; one committed ADIOS2 result."""
    write(tmp_path, "dc-20260101-000000.json", dc_doc(False, 1.5, 1.6, 0.5))
    write(tmp_path, "dc-20260102-000000.json", dc_doc(True, 1.2, 1.3, 0.6))
    now = write(tmp_path, "dc-20260103-000000.json",
                dc_doc(True, 1.05, 1.08, 0.95, idle=0.4, with_64=False))
    write(tmp_path, "adios2-20260102-120000.json",
          {"benchmark": "adios2", "date": "2026-01-02T12:00:00Z",
           "summary": {"16MiB": {"ratios": {"write_p50_dc_over_adios2_async": 0.3,
                                            "write_p50_dn_over_adios2_async": 0.7}}}})
    return tmp_path, now


def rows_by_name(rows):
    return {r["figure"]: r for r in rows}


def test_every_figure_of_the_issue_is_a_row_with_its_goal(results):
    directory, now = results
    rows = collect.performance(collect.sources([now], [], directory))
    assert [r["figure"] for r in rows] == FIGURES
    goals = {r["figure"]: r["goal"] for r in rows}
    assert goals[FIGURES[0]] == "<= 1.1"
    assert goals[FIGURES[2]] == "<= 5 µs"
    assert goals[FIGURES[7]] == ">= 0.9"
    assert goals[FIGURES[10]] == "<= 1 %"
    assert goals[FIGURES[12]] == "<= 0.5"
    assert goals[FIGURES[14]] == "<= 1.05"
    assert rows_by_name(rows)[FIGURES[10]]["damaris_1_7_1"] == "83–88%"


def test_values_are_the_worst_store_and_goals_are_judged(results):
    directory, now = results
    rows = rows_by_name(collect.performance(collect.sources([now], [], directory)))
    hot = rows[FIGURES[0]]
    assert (hot["value"], hot["met"]) == (1.08, "yes")
    assert hot["detail"] == "null 1.05, hdf5 1.08"
    assert (rows[FIGURES[1]]["value"], rows[FIGURES[1]]["met"]) == (pytest.approx(1.28), "no")
    assert (rows[FIGURES[2]]["value"], rows[FIGURES[2]]["met"]) == (4.5, "yes")
    assert (rows[FIGURES[3]]["value"], rows[FIGURES[3]]["met"]) == (7.0, "no")
    assert (rows[FIGURES[4]]["value"], rows[FIGURES[4]]["met"]) == (8.0, "yes")
    assert (rows[FIGURES[5]]["value"], rows[FIGURES[5]]["met"]) == (9.0, "yes")
    assert (rows[FIGURES[7]]["value"], rows[FIGURES[7]]["met"]) == (0.95, "yes")
    assert (rows[FIGURES[9]]["value"], rows[FIGURES[9]]["met"]) == (1.4, "yes")
    assert (rows[FIGURES[10]]["value"], rows[FIGURES[10]]["met"]) == (0.4, "yes")
    assert (rows[FIGURES[12]]["value"], rows[FIGURES[12]]["met"]) == (0.3, "yes")
    assert (rows[FIGURES[13]]["value"], rows[FIGURES[13]]["met"]) == (0.7, "no")
    assert rows[FIGURES[13]]["detail"] == "16MiB"


def test_missing_program_or_key_is_not_measured(results):
    directory, now = results
    rows = rows_by_name(collect.performance(collect.sources([now], [], directory)))
    # The quick run has no 64 MiB block, the approaches suite did not run, the ADIOS2 result
    # has no end-to-end ratio: not measured, never an error.
    for name in (FIGURES[6], FIGURES[8], FIGURES[11], FIGURES[14]):
        assert (rows[name]["value"], rows[name]["met"]) == (None, "not measured"), name
    assert rows[FIGURES[8]]["from"] == "not run"


def test_before_is_the_newest_earlier_run_of_the_same_kind(results):
    directory, now = results
    pairs = collect.sources([now], [], directory)
    assert pairs["dc"][1].path.name == "dc-20260102-000000.json"  # quick, like this run
    rows = rows_by_name(collect.performance(pairs))
    assert rows[FIGURES[0]]["before"] == 1.3
    assert rows[FIGURES[7]]["before"] == 0.6
    assert rows[FIGURES[6]]["before"] == 2 + 8.0  # the baseline had a 64 MiB block
    assert rows[FIGURES[10]]["before"] is None  # the baseline had no idle figure


def test_baseline_option_chooses_the_before_file(results):
    directory, now = results
    first = directory / "dc-20260101-000000.json"
    rows = rows_by_name(collect.performance(collect.sources([now], [first], directory)))
    assert rows[FIGURES[0]]["before"] == 1.6
    assert rows[FIGURES[7]]["before"] == 0.5


def test_committed_adios2_result_is_labelled_with_its_date(results):
    directory, now = results
    pairs = collect.sources([now], [], directory)
    assert pairs["adios2"][0].label == "committed result, 2026-01-02"
    table = collect.table_performance(collect.performance(pairs), pairs)
    assert "- adios2: now adios2-20260102-120000.json (committed result, 2026-01-02)" in table


def test_markdown_row_shows_now_before_goal_and_verdict(results):
    directory, now = results
    pairs = collect.sources([now], [], directory)
    table = collect.table_performance(collect.performance(pairs), pairs).splitlines()
    assert table[0] == "| figure | now | before | goal | met | Damaris 1.7.1 | source |"
    assert table[2].startswith("| client write / memcpy, 1 MiB block, hot | 1.08 (null 1.05, "
                               "hdf5 1.08) | 1.30 | ≤ 1.1 | yes | 1.31–1.56 |")
    row = next(line for line in table if line.startswith("| `end_iteration` per call, 64 MiB"))
    assert "| not measured | 10.00 µs | ≤ 10 µs | not measured |" in row
    assert ("- dc: now dc-20260103-000000.json (this run, quick); "
            "before dc-20260102-000000.json (baseline, quick)") in table


def test_command_line_prints_json_rows(results):
    directory, now = results
    out = subprocess.run([sys.executable, str(COLLECT), "--performance", "--json", "--results",
                          str(directory), str(now)], check=True, capture_output=True, text=True)
    doc = json.loads(out.stdout)
    assert [r["figure"] for r in doc["performance"]] == FIGURES
    assert doc["sources"]["dc"]["before"] == str(directory / "dc-20260102-000000.json")
    assert doc["sources"]["adios2"]["now_label"] == "committed result, 2026-01-02"


def test_before_after_lists_every_summary_number(results):
    directory, now = results
    out = subprocess.run([sys.executable, str(COLLECT), "--before-after", "--results",
                          str(directory), str(now)], check=True, capture_output=True, text=True)
    assert "| throughput.fsync.ratio | 0.600 | 0.950 | 1.58 |" in out.stdout.splitlines()


def test_idle_cpu_comes_from_the_dc_run_report(tmp_path):
    """collect_dc on a run directory as run.sh leaves it: the DC jitter run's report gives the
    servers' idle CPU (idle phase CPU / wall)."""
    (tmp_path / "machine.json").write_text("{}")
    jitter = {"output_ms": {"p50": 1.0, "p99": 2.0, "p99_over_p50": 2.0, "max": 3.0},
              "loop_s": 1.2, "iterations": 60}
    (tmp_path / "jitter_dc2_8MiB.json").write_text("report summary line\n" + json.dumps(jitter))
    (tmp_path / "jitter_dc2_8MiB.busy").write_text("3")
    report = {"schema": "ecluse-report/2", "approach": "dc",
              "roles": {"dedicated-core": {"ranks": 1, "wall_s": 1.3, "cpu_s": 0.2,
                                           "phases": {"idle": {"wall_s": 1.0, "cpu_s": 0.004},
                                                      "store": {"wall_s": 0.3, "cpu_s": 0.2}}}}}
    (tmp_path / "jitter_dc2_8MiB.report").write_text(json.dumps(report))
    doc = collect.collect_dc(tmp_path, 10, "1")
    assert doc["suite"] == "dc"
    assert doc["summary"]["jitter"]["dc2_8MiB"]["server_idle_cpu_percent"] == pytest.approx(0.4)
    path = write(tmp_path, "dc-20260104-000000.json", doc)
    rows = rows_by_name(collect.performance(collect.sources([path], [], tmp_path)))
    assert (rows[FIGURES[10]]["value"], rows[FIGURES[10]]["met"]) == (pytest.approx(0.4), "yes")
    assert rows[FIGURES[9]]["met"] == "no"  # p99/p50 = 2.0


def test_alloc_detail_shows_the_calls_that_found_room_at_once(results):
    directory, now = results
    doc = json.loads(now.read_text())
    hot = doc["write_cost"]["stores"]["null"]["hot"]
    hot.update(worst_alloc_commit_us=14.0, worst_alloc_commit_us_without_wait=1.5,
               alloc_commit_buffer_waits=47)
    now.write_text(json.dumps(doc))
    rows = rows_by_name(collect.performance(collect.sources([now], [], directory)))
    row = rows[FIGURES[2]]
    assert (row["value"], row["met"]) == (14.0, "no")  # judged on every call
    assert row["detail"] == "null 14.00 (1.50 without the 47 calls that waited for room), hdf5 4.50"


def test_alloc_detail_shows_the_floor_of_any_call(results):
    directory, now = results
    doc = json.loads(now.read_text())
    stores = doc["write_cost"]["stores"]
    stores["null"]["after_compute"].update(worst_alloc_commit_us=13.0,
                                           floor_minimal_call_us=3.25)
    stores["hdf5"]["after_compute"]["worst_alloc_commit_us"] = 17.5
    now.write_text(json.dumps(doc))
    rows = rows_by_name(collect.performance(collect.sources([now], [], directory)))
    row = rows[FIGURES[3]]
    assert (row["value"], row["met"]) == (17.5, "no")
    assert row["detail"] == "null 13.00; a call that does nothing 3.25 there, hdf5 17.50"
