"""How a job ends on a cluster (docs/reliability.md, "Signals"): a batch system's time limit
or scancel sends SIGTERM to every task, Ctrl-C sends SIGINT. A dedicated core or node died at
once, with the iterations its clients had handed over (their writes and end_iteration returned
OK) not stored and no word of them: no report at all. It now writes a partial report naming
what it has not stored yet, stores what its clients completed if it is given the time, and ends
by the signal."""
import json
import os
import signal
import subprocess
import sys
import time

import h5py
import numpy as np
import pytest

from mpirun import child_env, mpiexec

N = 1 << 18  # 2 MiB of int64 per client and iteration, written through fsync: a slow store

CONFIG = """<simulation name="sig" xmlns="urn:ecluse:config:1">
  <architecture><domains count="1"/>ARCHITECTURE<buffer size="256MiB"/></architecture>
  <data><layout name="l" type="long" dimensions="{n}"/><variable name="v" layout="l"/></data>
  <storage><store name="files" type="HDF5"><option key="FilesPath">out</option>
    <option key="Sync">yes</option></store></storage>
  <log LogLevel="warning"/>
</simulation>
"""

SCRIPT = """
import os, time
import numpy as np
from mpi4py import MPI
import ecluse
rank = MPI.COMM_WORLD.Get_rank()
with open(f"pid.{{rank}}", "w") as f:
    f.write(str(os.getpid()))
with ecluse.Session("sig.xml") as s:
    if s.is_client:
        me = s.client_comm.Get_rank()
        for it in range(100000):
            s.write("v", np.full({n}, 10 * it + me, dtype=np.int64))
            s.end_iteration()
            with open(f"ok.{{me}}", "a") as f:
                f.write(f"{{it}}\\n")
            time.sleep(0.005)
"""


def iterations_of(path):
    return {int(line) for line in path.read_text().split()} if path.exists() else set()


def stored_blocks(out, iteration):
    """The client blocks stored for an iteration, each checked bit for bit."""
    blocks = set()
    for path in out.glob(f"sig_It{iteration}_*.h5"):
        with h5py.File(path, "r") as f:
            for name, data in f["v"].items():
                client = int(name[1:])
                assert (data[()] == 10 * iteration + client).all(), (path, name)
                blocks.add(client)
    return blocks


@pytest.mark.parametrize("architecture", [
    '<dedicated cores="1" nodes="0"/><virtual-nodes ranks-per-node="3"/>',
    '<dedicated cores="0" nodes="1"/><virtual-nodes ranks-per-node="1"/>'])
def test_sigterm_to_every_task_leaves_no_acknowledged_iteration_unaccounted_for(
        tmp_path, architecture):
    (tmp_path / "sig.xml").write_text(
        CONFIG.replace("ARCHITECTURE", architecture).format(n=N))
    (tmp_path / "script.py").write_text(SCRIPT.format(n=N))
    job = subprocess.Popen([mpiexec(), "-n", "3", sys.executable, "script.py"], cwd=tmp_path,
                           env=dict(child_env(), ECLUSE_TIMEOUT="30"),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while (min(len(iterations_of(tmp_path / f"ok.{c}")) for c in (0, 1)) < 10
           and time.monotonic() < deadline):
        time.sleep(0.02)
    pids = [int((tmp_path / f"pid.{r}").read_text()) for r in range(3)]
    for pid in pids:  # as Slurm does at the time limit: every task at once
        os.kill(pid, signal.SIGTERM)
    out, err = job.communicate(timeout=120)
    assert job.returncode != 0, out + err

    report = json.loads((tmp_path / "sig-report.json").read_text())
    assert report["complete"] is False, report
    causes = [f["cause"] for f in report["failures"]]
    who = "dedicated core" if "cores=\"1\"" in architecture else "dedicated node server"
    assert any(c.startswith(f"the {who} received SIGTERM") for c in causes), causes
    acknowledged = iterations_of(tmp_path / "ok.0") & iterations_of(tmp_path / "ok.1")
    assert len(acknowledged) >= 10
    listed = set()
    for failure in report["failures"]:
        lost = failure["lost_iterations"]
        if lost and lost.get("and_later"):  # those on their way to the server too
            assert lost["last"] is None and lost["count"] is None, lost
            listed.update(range(lost["first"], max(acknowledged) + 1))
        elif lost:
            listed.update(range(lost["first"], lost["last"] + 1))
    unaccounted = [it for it in sorted(acknowledged)
                   if it not in listed and stored_blocks(tmp_path / "out", it) != {0, 1}]
    assert unaccounted == [], (unaccounted, causes)
