"""A full disk, for real (issue 14, "no silent loss"): the output directory is a small tmpfs that
fills up during the run, under TP, DC and DN. The simulation catches every error and ends as if
nothing happened, as a code that does not check return codes would. Then: the simulation was
told (ECLUSE_IO_ERROR naming the file system's error and the fix), the report counts exactly the
(writer, iteration) pairs whose file is missing, the summary says NOT STORED, `ecluse run` exits
non-zero, and every file under its final name holds what was written. Needs the right to mount
a tmpfs (root, as in CI); skipped otherwise. The store unit tests cover the same paths with
RLIMIT_FSIZE (tests/store/test_store_failures.cpp)."""
import json
import subprocess
import sys
import textwrap

import h5py
import numpy as np
import pytest

from mpirun import child_env, mpiexec

ITERATIONS = 30
VALUES = 16384  # int32 per client and iteration: 64 KiB, ~8 files in the 512 KiB disk

CONFIG = """<simulation name="full" xmlns="urn:ecluse:config:1">
  <architecture><domains count="1"/>ARCHITECTURE<buffer size="8MiB"/></architecture>
  <data><layout name="l" type="int" dimensions="{values}"/><variable name="v" layout="l"/></data>
  <storage><store name="files" type="HDF5"><option key="FilesPath">disk/out</option></store>
  </storage>
  <log LogLevel="error"/>
</simulation>
""".replace("{values}", str(VALUES))

# (ranks, architecture, clients, writers: the ranks that write files)
APPROACHES = {
    "tp": (2, '<dedicated cores="0" nodes="0"/>', 2, 2),
    "dc": (3, '<dedicated cores="1" nodes="0"/><virtual-nodes ranks-per-node="3"/>', 2, 1),
    "dn": (3, '<dedicated cores="0" nodes="1"/><virtual-nodes ranks-per-node="1"/>', 2, 1),
}

SIMULATION = """
import json, time
import numpy as np
from mpi4py import MPI
import ecluse
errors, final, client = [], None, False
try:
    with ecluse.Session("full.xml") as s:
        client = s.is_client
        if s.is_client:
            rank = s.client_comm.Get_rank()
            for it in range(ITERATIONS):
                try:
                    s.write("v", np.arange(VALUES, dtype=np.int32) + it * 100000 + rank * 10)
                    s.end_iteration()
                except ecluse.Error as e:  # told, and goes on as a careless code would
                    errors.append([it, e.status, e.message])
                time.sleep(0.02)
except ecluse.Error as e:
    final = [e.status, e.message]
with open(f"told-{MPI.COMM_WORLD.Get_rank()}.json", "w") as f:
    json.dump({"client": client, "errors": errors, "final": final}, f)
"""


@pytest.fixture
def small_disk(tmp_path):
    """tmp_path/disk: a 512 KiB tmpfs, unmounted at the end."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k,mode=0700", "tmpfs",
                              str(disk)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


@pytest.mark.parametrize("approach", ["tp", "dc", "dn"])
def test_a_disk_that_fills_up_loses_nothing_silently(tmp_path, small_disk, approach):
    ranks, architecture, clients, writers = APPROACHES[approach]
    (tmp_path / "full.xml").write_text(CONFIG.replace("ARCHITECTURE", architecture))
    (tmp_path / "sim.py").write_text(textwrap.dedent(SIMULATION).replace(
        "ITERATIONS", str(ITERATIONS)).replace("VALUES", str(VALUES)))
    result = subprocess.run([sys.executable, "-m", "ecluse", "run", "--", mpiexec(), "-n",
                             str(ranks), sys.executable, "sim.py"], cwd=tmp_path,
                            env=dict(child_env(), ECLUSE_TIMEOUT="60"), capture_output=True,
                            text=True, timeout=300)
    output = result.stdout + result.stderr
    # The program ended as if nothing happened; the launcher's status shows the loss.
    assert result.returncode == 1, output
    assert "store(s) failed in" in result.stderr and "is not on disk, all of it or a part" in result.stderr
    # Every client was told, at a later call at the latest, with the cause and the fix.
    told = [json.loads(p.read_text()) for p in sorted(tmp_path.glob("told-*.json"))]
    assert len(told) == ranks, output
    told = [r for r in told if r["client"]]
    assert len(told) == clients, output
    for r in told:
        raised = r["errors"] + ([r["final"]] if r["final"] else [])
        assert raised, (approach, r)
        status, message = raised[0][-2:]
        assert status == "ECLUSE_IO_ERROR", (approach, raised[0])
        assert "No space left on device" in message and "free space on that file system" in \
            message, (approach, message)
    # Every file under its final name is whole and holds what its clients wrote.
    out = small_disk / "out"
    assert not list(out.rglob("*.part")), "a partial file stayed behind"
    files = sorted(out.rglob("*.h5"))
    assert 0 < len(files) < writers * ITERATIONS, (approach, len(files))
    for path in files:
        with h5py.File(path, "r") as f:
            for name, dataset in f["v"].items():
                data = dataset[()]
                it = int(dataset.attrs["iteration"])
                source = int(name.lstrip("P"))
                np.testing.assert_array_equal(
                    data, np.arange(VALUES, dtype=np.int32) + it * 100000 + source * 10)
    # The report counts exactly the (writer, iteration) pairs without a file.
    report = json.loads((tmp_path / "full-report.json").read_text())
    failed = report["iterations"]["failed_iterations"]["count"]
    assert failed == writers * ITERATIONS - len(files), (approach, failed, len(files))
    assert report["iterations"]["store_errors"] >= failed
    assert "NOT STORED:" in result.stdout, result.stdout
