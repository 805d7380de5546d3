"""The package's one report reader and one calibration reader (ecluse.report,
ecluse.calibration): typed fields from a real run's report, errors that name the file."""
import json
import os
import pathlib
import shutil
import subprocess

import pytest

from ecluse import calibration, report

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("ECLUSE_BUILD", ROOT / "build"))


def run_example(tmp_path):
    shutil.copy(ROOT / "examples" / "simulation.xml", tmp_path / "simulation.xml")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    mpiexec = os.environ.get("ECLUSE_MPIEXEC") or shutil.which("mpiexec.openmpi")
    result = subprocess.run([mpiexec, "-n", "2", str(BUILD / "examples" / "ecluse_example_simulation"),
                             "simulation.xml", "3"], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return tmp_path / "heat-report.json"


def test_a_real_report_reads_typed(tmp_path):
    r = report.load(str(run_example(tmp_path)))
    assert (r.approach, r.ranks, r.nodes) == ("tp", 2, 1)
    assert set(r.roles) == {"simulation"} and r.server_role() is None
    assert r.completion_time_s > 0 and r.roles["simulation"].ranks == 2
    assert r.iteration_count() == 3 and r.output_count() == 3 and r.output_every() == 1
    # Each client hands over a slab (34 x 50 doubles) and 4 ints every iteration, and its half
    # of y (48 floats) once.
    b = r.iterations.client_bytes
    slab = 34 * 50 * 8 + 16
    assert (b.count, b.sum, b.min, b.max) == (6, 6 * slab + 2 * 48 * 4, slab, slab + 48 * 4)
    assert r.bytes_per_output() == (6 * slab + 2 * 48 * 4) / 3
    assert r.iterations.client_write_s.count == 6 and r.write_time_per_output() > 0
    assert (r.energy.source, r.energy.quality) == ("model", "modelled")


def test_reports_that_are_not_reports_are_refused_by_name(tmp_path):
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"schema": "something-else/1"}))
    with pytest.raises(report.ReportError, match=r"other.json: schema is 'something-else/1', "
                                                 r"expected 'ecluse-report/2' \(or the older "
                                                 r"'ecluse-report/1'\)"):
        report.load(str(path))
    assert report.read(str(tmp_path / "missing.json")) is None
    r = report.Report.from_dict({"schema": report.SCHEMA}, str(path))
    with pytest.raises(report.ReportError, match=r"other.json: no 'ranks' in the report"):
        r.require("ranks")


def test_calibration_round_trips_and_refuses_what_the_runtime_refuses(tmp_path):
    sections = [calibration.Section("host", "node*", "lab-1", 95.5, 310.0),
                calibration.Section("cpu", "*EPYC*", "lab-2", 80.0, 250.25)]
    path = tmp_path / "calibration.ini"
    path.write_text(calibration.write_text(sections))
    read = calibration.read(str(path))
    assert [(s.kind, s.pattern, s.id, s.idle_watts, s.max_watts) for s in read] == \
        [("host", "node*", "lab-1", 95.5, 310.0), ("cpu", "*EPYC*", "lab-2", 80.0, 250.2)]
    assert calibration.find(str(path), host="node7", cpu="x").id == "lab-1"
    assert calibration.find(str(path), host="login", cpu="AMD EPYC 7742").id == "lab-2"
    for text, message in [
            ("[host a]\nidle_watts = 300\nmax_watts = 200\n",
             ":1: idle_watts (300) is above max_watts (200)"),
            ("idle_watts = 1\n", ":1: key before the first [host PATTERN] or [cpu PATTERN] section"),
            ("[host a]\nidle_watts = 1_0\nmax_watts = 20\n", ":2: '1_0' is not a number of watts"),
            ("[rack a]\n", ":1: section '[rack a]' must be [host PATTERN] or [cpu PATTERN]")]:
        path.write_text(text)
        with pytest.raises(calibration.CalibrationError) as e:
            calibration.read(str(path))
        assert str(e.value) == str(path) + message
