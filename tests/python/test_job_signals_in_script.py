"""A job's ending signal while a dedicated core or node runs a <pyscript> (docs/reliability.md,
"Signals"): the server acted on it only once the script returned, so a script longer than the
launcher's grace before SIGKILL (Open MPI: 1 s) left no report at all. Its signals' thread now
writes the entry at once, naming the iteration the script holds as not stored."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from mpirun import BUILD, child_env, mpiexec

pytestmark = pytest.mark.skipif(not list(BUILD.glob("libecluse_python.so*")),
                                reason="libecluse_python not built (no Python embedding library)")

SLEEPS_AT = 3

CONFIG = """<simulation name="nap" xmlns="urn:ecluse:config:1">
  <architecture><domains count="1"/>ARCHITECTURE<buffer size="64MiB"/></architecture>
  <data><layout name="l" type="long" dimensions="16"/>
    <variable name="v" layout="l" script="nap"/></data>
  <storage><store name="files" type="HDF5"><option key="FilesPath">out</option></store>
  </storage>
  <scripts><pyscript name="nap" file="nap.py"/></scripts>
  <log LogLevel="warning"/>
</simulation>
"""

# On the server's main thread: far longer than the test waits for the entry.
NAP = f"""
import os, time
def main(DD):
    if DD["iteration_data"]["iteration"] == {SLEEPS_AT}:
        with open("napping.tmp", "w") as f:
            f.write(str(os.getpid()))
        os.rename("napping.tmp", "napping")
        time.sleep(30)
        open("woke", "w").close()
"""

SIMULATION = """
import os, time
import numpy as np
from mpi4py import MPI
import ecluse
rank = MPI.COMM_WORLD.Get_rank()
with open(f"pid.{rank}", "w") as f:
    f.write(str(os.getpid()))
with ecluse.Session("nap.xml") as s:
    if s.is_client:
        for it in range(100000):
            s.write("v", np.full(16, it, dtype=np.int64))
            s.end_iteration()
            time.sleep(0.01)
"""

ARCHITECTURES = {
    "dedicated core": '<dedicated cores="1" nodes="0"/><virtual-nodes ranks-per-node="3"/>',
    "dedicated node server": '<dedicated cores="0" nodes="1"/><virtual-nodes ranks-per-node="1"/>',
}


def start(tmp_path, who):
    (tmp_path / "nap.xml").write_text(CONFIG.replace("ARCHITECTURE", ARCHITECTURES[who]))
    (tmp_path / "nap.py").write_text(NAP)
    (tmp_path / "simulation.py").write_text(SIMULATION)
    job = subprocess.Popen([mpiexec(), "-n", "3", sys.executable, "simulation.py"], cwd=tmp_path,
                           env=dict(child_env(), ECLUSE_TIMEOUT="60"),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (tmp_path / "napping").exists():
        assert job.poll() is None, job.communicate()
        assert time.monotonic() < deadline, "the script never reached its iteration"
        time.sleep(0.02)
    return job, int((tmp_path / "napping").read_text())


def causes_when_written(path, count, timeout=15):
    """The report's causes once it lists `count` failures (None if it does not in time): it is
    written whole (a rename), so a read never sees half of it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            failures = json.loads(path.read_text())["failures"]
            if len(failures) >= count:
                return failures
        time.sleep(0.02)
    return None


def first_entry(who):
    return (f"the {who} received SIGTERM (a batch system's time limit, scancel, Ctrl-C) while "
            f"its clients ran: iteration {SLEEPS_AT} and every later one its clients handed over "
            f"are not stored yet (received: iteration")


@pytest.mark.parametrize("who", list(ARCHITECTURES))
def test_a_signal_while_the_server_runs_a_script_is_said_at_once(tmp_path, who):
    job, server = start(tmp_path, who)
    os.kill(server, signal.SIGTERM)
    failures = causes_when_written(tmp_path / "nap-report.json", 1)
    script_returned = (tmp_path / "woke").exists()
    # As a batch system does: the clients too (they die of it, and the launcher kills the server,
    # still in its script).
    for rank in range(3):
        pid = int((tmp_path / f"pid.{rank}").read_text())
        if pid != server:
            os.kill(pid, signal.SIGTERM)
    out, err = job.communicate(timeout=60)
    assert failures is not None, out + err
    assert not script_returned
    assert job.returncode != 0, out + err
    assert failures[0]["cause"].startswith(first_entry(who)), failures
    assert failures[0]["lost_iterations"]["first"] == SLEEPS_AT, failures
    assert failures[0]["lost_iterations"]["and_later"] is True, failures
    assert first_entry(who) in err  # the log line
    assert not (tmp_path / "woke").exists()
    report = json.loads((tmp_path / "nap-report.json").read_text())
    assert report["complete"] is False
    assert len([f for f in report["failures"] if "received SIGTERM" in f["cause"]]) == 1


def test_a_second_signal_while_the_server_runs_a_script_ends_it_at_once(tmp_path):
    job, server = start(tmp_path, "dedicated core")
    os.kill(server, signal.SIGTERM)
    assert causes_when_written(tmp_path / "nap-report.json", 1) is not None
    time.sleep(1.2)  # sooner, it would be a launcher passing the first on
    os.kill(server, signal.SIGTERM)
    out, err = job.communicate(timeout=60)  # the launcher ends the clients
    assert job.returncode != 0, out + err
    assert not (tmp_path / "woke").exists()
    failures = json.loads((tmp_path / "nap-report.json").read_text())["failures"]
    # The clients add theirs (their server is gone) before the launcher ends them.
    failures = [f for f in failures if f["seen_by"]["role"] == "dedicated-core"]
    assert [f["cause"][:60] for f in failures] == [
        first_entry("dedicated core")[:60],
        "the dedicated core received a second SIGTERM and ends now: i"], failures
    assert failures[1]["cause"].startswith(
        f"the dedicated core received a second SIGTERM and ends now: iteration {SLEEPS_AT} "), \
        failures
