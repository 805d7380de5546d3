"""bench/adios2_summary.py: medians over repetitions, ratios against ADIOS2 BP5 asynchronous
write and against the run without output, and the goals of issue 18, from synthetic runs."""
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "adios2_summary.py"


def run_json(p50, p99, end_to_end, loop, disk):
    return {"approach": "x", "ranks": 1, "iterations": 4, "compute_ms_target": 40,
            "work_units": 123, "write_ms_percentiles": {"p50": p50, "p99": p99, "max": p99,
                                                        "mean": p50},
            "compute_ms": {"p50": 40.0}, "loop_s": loop, "end_to_end_s": end_to_end,
            "bytes_on_disk": {"bytes": disk, "allocated_bytes": disk, "files": 2},
            "interference": {"other_cpu_fraction_of_machine": 0.01}}


def write_run(directory, name, result, noise=""):
    # The programs print pretty JSON, possibly after other lines (the library's messages).
    (directory / f"{name}.json").write_text(noise + json.dumps(result, indent=2) + "\n")
    (directory / f"{name}.busy").write_text("3\n")


def test_medians_ratios_and_goals(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    # approach: (p50, p99, end_to_end, loop) per repetition
    figures = {"none": [(0, 0, 1.00, 1.00), (0, 0, 1.02, 1.02)],
               "dc": [(1.0, 4.0, 1.03, 1.01), (3.0, 6.0, 1.05, 1.03)],
               "dn": [(6.0, 9.0, 1.20, 1.10), (6.0, 9.0, 1.20, 1.10)],
               "adios2-bp5-async": [(10.0, 20.0, 1.3, 1.2), (10.0, 20.0, 1.3, 1.2)],
               "hdf5-fpp": [(12.0, 30.0, 1.4, 1.4), (12.0, 30.0, 1.4, 1.4)],
               "none-produce": [(0, 0, 1.10, 1.10), (0, 0, 1.10, 1.10)],
               "dc-zero-copy": [(0.1, 0.2, 1.12, 1.11), (0.1, 0.2, 1.14, 1.11)]}
    for approach, reps in figures.items():
        for rep, (p50, p99, e2e, loop) in enumerate(reps):
            write_run(runs, f"one_client__{approach}__16MiB__r{rep}",
                      run_json(p50, p99, e2e, loop, 1 << 20), noise="ADIOS2 says hello\n")
    out = tmp_path / "adios2.json"
    printed = subprocess.run([sys.executable, "-B", str(SCRIPT), "--runs", str(runs), "--out",
                              str(out), "--command", "bench/adios2.sh --reps 2"],
                             capture_output=True, text=True, check=True).stdout
    result = json.loads(out.read_text())
    assert result["command"] == "bench/adios2.sh --reps 2"
    one = result["summary"]["16MiB"]["one_client"]
    assert one["dc"]["write_p50_ms"] == 2.0 and one["dc"]["repetitions"] == 2
    assert one["dc"]["machine_busy_percent_before"] == 3
    ratios = result["summary"]["16MiB"]["ratios"]
    assert ratios["write_p50_dc_over_adios2_async"] == 0.2
    assert ratios["write_p99_dn_over_adios2_async"] == 0.45
    assert abs(ratios["end_to_end_dc_over_none"] - 1.04 / 1.01) < 1e-12
    goals = result["summary"]["16MiB"]["goals"]
    assert goals["write_p50_dc_over_adios2_async"]["met"] is True
    assert goals["write_p50_dn_over_adios2_async"]["met"] is False  # 0.6 > 0.5
    assert goals["end_to_end_dc_over_none"]["met"] is True  # fits: 12 ms store < 40 ms compute
    # Zero copy is compared with the run whose compute phase also writes the field.
    assert abs(ratios["end_to_end_dc-zero-copy_over_none-produce"] - 1.13 / 1.10) < 1e-12
    assert goals["end_to_end_dc-zero-copy_over_none-produce"]["met"] is True
    assert "| dc | 2.00 | 5.00 |" in printed
    assert len(result["runs"]) == 14
