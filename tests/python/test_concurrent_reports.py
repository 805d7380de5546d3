"""Two runs of one simulation started at once in one directory (Damaris's Dask statistics
workflow submits its simulations so, with one XML and no store): both wrote
`<simulation>-report.json` at finalize, the last replacing the other's, and both `ecluse run`s
printed that one report. The first run's initialize now claims the path (`<report>.running`);
the other writes `<report-stem>.<pid>.json`, said in a warning."""
import json
import pathlib
import subprocess
import sys
import textwrap
import time

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from mpirun import child_env, mpiexec  # noqa: E402

CONFIG = """<simulation name="twin" xmlns="urn:ecluse:config:1">
  <architecture><domains count="1"/><dedicated cores="0" nodes="0"/></architecture>
  <data><layout name="l" type="int" dimensions="8"/><variable name="v" layout="l"/></data>
  <log LogLevel="warning"/>
</simulation>
"""

# Initializes, says so, waits for "go", then ends ITERATIONS iterations and finalizes.
SIMULATION = """
import os, pathlib, sys, time
import numpy as np
import ecluse
tag, iterations = sys.argv[1], int(sys.argv[2])
with ecluse.Session("twin.xml") as s:
    pathlib.Path(f"initialized.{tag}").write_text(str(os.getpid()))
    deadline = time.monotonic() + 120
    while not os.path.exists("go") and time.monotonic() < deadline:
        time.sleep(0.05)
    for it in range(iterations):
        s.write("v", np.arange(8, dtype=np.int32))
        s.end_iteration()
"""


def launch(tmp_path, tag, iterations):
    return subprocess.Popen([sys.executable, "-m", "ecluse", "run", "--", mpiexec(), "-n", "1",
                             sys.executable, "sim.py", tag, str(iterations)], cwd=tmp_path,
                            env=dict(child_env(), ECLUSE_TIMEOUT="120"), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def wait_for(path, seconds=120):
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never came"
        time.sleep(0.05)


def test_two_runs_at_once_in_one_directory_keep_both_reports(tmp_path):
    (tmp_path / "twin.xml").write_text(CONFIG)
    (tmp_path / "sim.py").write_text(textwrap.dedent(SIMULATION))
    first = launch(tmp_path, "a", 2)
    wait_for(tmp_path / "initialized.a")
    assert (tmp_path / "twin-report.json.running").exists()
    second = launch(tmp_path, "b", 3)
    wait_for(tmp_path / "initialized.b")
    pid = int((tmp_path / "initialized.b").read_text())
    (tmp_path / "go").touch()
    out_a, err_a = first.communicate(timeout=300)
    out_b, err_b = second.communicate(timeout=300)
    assert first.returncode == 0 and second.returncode == 0, out_a + err_a + out_b + err_b
    own = f"twin-report.{pid}.json"
    assert ("writes its report to twin-report.json at this time: this run's report goes to "
            f"{own} (runs of one simulation started at once in one directory; give each its own "
            "with ECLUSE_REPORT to choose the names)") in err_b, err_b
    assert "another run" not in err_a, err_a
    # Each run's report holds its own iterations, and each launcher read its own.
    assert json.loads((tmp_path / "twin-report.json").read_text())["iterations"]["count"] == 2
    assert json.loads((tmp_path / own).read_text())["iterations"]["count"] == 3
    assert "twin-report.json" in out_a and own not in out_a, out_a
    assert own in out_b, out_b
    assert not list(tmp_path.glob("*.running")), "the claim outlived its run"
    assert not list(tmp_path.glob("*.previous"))


def test_a_claim_left_by_a_dead_run_is_taken_over(tmp_path):
    """A run killed before its end leaves its claim; the next run on the host takes it."""
    (tmp_path / "twin.xml").write_text(CONFIG)
    (tmp_path / "sim.py").write_text(textwrap.dedent(SIMULATION))
    (tmp_path / "go").touch()
    dead = subprocess.run(["sh", "-c", "echo $$"], capture_output=True, text=True).stdout.strip()
    host = subprocess.run(["hostname"], capture_output=True, text=True).stdout.strip()
    (tmp_path / "twin-report.json.running").write_text(f"{host} {dead}\n")
    run = launch(tmp_path, "a", 1)
    out, err = run.communicate(timeout=300)
    assert run.returncode == 0, out + err
    assert "another run" not in err, err
    assert json.loads((tmp_path / "twin-report.json").read_text())["iterations"]["count"] == 1
    assert not list(tmp_path.glob("*.running"))
