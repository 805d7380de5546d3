"""<pyscript>s in a Python simulation's own process (time partitioning), as users of the Python
package meet them (docs/python-insitu.md, "Trust and limits"): a process that runs a second
session after the first runs the second's scripts with its own communicator (it ran the first's
again, or crashed in MPI_Comm_size on the first's freed communicator); a Ctrl-C while a script
runs reaches the simulation as KeyboardInterrupt (it was swallowed as a script failure)."""
import os
import signal
import subprocess
import sys
import time

import pytest

from mpirun import BUILD, child_env, mpiexec

pytestmark = pytest.mark.skipif(not list(BUILD.glob("libecluse_python.so*")),
                                reason="libecluse_python not built (no Python embedding library)")

CONFIG = """<simulation name="sim{name}" xmlns="urn:ecluse:config:1">
  <architecture><domains count="1"/><dedicated cores="0" nodes="0"/></architecture>
  <data><layout name="l" type="double" dimensions="4"/>
    <variable name="v{name}" layout="l" script="s{name}"/></data>
  <storage><store name="f" type="HDF5"><option key="FilesPath">out{name}</option></store>
  </storage>
  <scripts><pyscript name="s{name}" file="s{name}.py"/></scripts>
</simulation>
"""

SCRIPT = """
from ecluse import insitu
def main(DD):
    data = DD["iteration_data"]
    with open("seen.txt", "a") as f:
        f.write("{name} " + " ".join(sorted(k for k in data if k != "iteration")) +
                f" size={{insitu.server_comm().Get_size()}}\\n")
"""

TWO_SESSIONS = """
import numpy as np
from mpi4py import MPI
import ecluse
for name in "AB":
    with ecluse.Session(f"sim{name}.xml") as s:
        if s.is_client:
            s.write("v" + name, np.full(4, 1.0))
            s.end_iteration()
"""


def test_a_second_session_runs_its_own_scripts(tmp_path):
    for name in "AB":
        (tmp_path / f"sim{name}.xml").write_text(CONFIG.format(name=name))
        (tmp_path / f"s{name}.py").write_text(SCRIPT.format(name=name))
    (tmp_path / "two.py").write_text(TWO_SESSIONS)
    result = subprocess.run([mpiexec(), "-n", "1", sys.executable, "two.py"], cwd=tmp_path,
                            env=child_env(), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "seen.txt").read_text().splitlines() == ["A vA size=1", "B vB size=1"]


SLEEPER_CONFIG = """<simulation name="nap" xmlns="urn:ecluse:config:1">
  <architecture><domains count="1"/><dedicated cores="0" nodes="0"/></architecture>
  <data><layout name="l" type="double" dimensions="4"/>
    <variable name="a" layout="l" script="nap"/></data>
  <storage><store name="f" type="HDF5"><option key="FilesPath">out</option></store></storage>
  <scripts><pyscript name="nap" file="nap.py"/></scripts>
</simulation>
"""

SLEEPER = """
import time
def main(DD):
    open("napping", "w").close()
    time.sleep(60)
"""

SIMULATION = """
import os, numpy as np
from mpi4py import MPI
import ecluse
with open("pid", "w") as f:
    f.write(str(os.getpid()))
with ecluse.Session("nap.xml") as s:
    for it in range(3):
        s.write("a", np.full(4, float(it)))
        s.end_iteration()
        print("after iteration", it, flush=True)
"""


def test_ctrl_c_while_a_script_runs_reaches_the_simulation(tmp_path):
    (tmp_path / "nap.xml").write_text(SLEEPER_CONFIG)
    (tmp_path / "nap.py").write_text(SLEEPER)
    (tmp_path / "sim.py").write_text(SIMULATION)
    job = subprocess.Popen([mpiexec(), "-n", "1", sys.executable, "sim.py"], cwd=tmp_path,
                           env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    deadline = time.monotonic() + 60
    while not (tmp_path / "napping").exists() and time.monotonic() < deadline:
        assert job.poll() is None, job.communicate()
        time.sleep(0.02)
    started = time.monotonic()
    os.kill(int((tmp_path / "pid").read_text()), signal.SIGINT)  # the simulation's process
    out, err = job.communicate(timeout=60)
    assert time.monotonic() - started < 30  # not after the script's 60 s, nor 3 of them
    assert job.returncode != 0, out + err
    assert "KeyboardInterrupt" in err, err
    assert "after iteration 0" not in out, out


HELPER_CONFIG = """<simulation name="near" xmlns="urn:ecluse:config:1">
  <architecture><domains count="1"/><dedicated cores="0" nodes="0"/></architecture>
  <data><layout name="l" type="double" dimensions="4"/>
    <variable name="a" layout="l" script="s"/></data>
  <storage><store name="f" type="HDF5"><option key="FilesPath">out</option></store></storage>
  <scripts><pyscript name="s" file="scripts/uses_helper.py"/></scripts>
</simulation>
"""

ONE_ITERATION = """
import numpy as np
from mpi4py import MPI
import ecluse
with ecluse.Session("near.xml") as s:
    s.write("a", np.full(4, 2.0))
    s.end_iteration()
"""


def test_a_script_imports_the_modules_beside_it(tmp_path):
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "ecluse_test_helper.py").write_text("def twice(x):\n    return 2 * x\n")
    (tmp_path / "scripts" / "uses_helper.py").write_text(
        "import ecluse_test_helper\n"
        "def main(DD):\n"
        "    with open('helped.txt', 'w') as f:\n"
        "        f.write(str(ecluse_test_helper.twice(21)))\n")
    (tmp_path / "near.xml").write_text(HELPER_CONFIG)
    (tmp_path / "sim.py").write_text(ONE_ITERATION)
    result = subprocess.run([mpiexec(), "-n", "1", sys.executable, "sim.py"], cwd=tmp_path,
                            env=child_env(), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "helped.txt").read_text() == "42"
