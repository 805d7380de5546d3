"""Collective HDF5 calls are bounded by ECLUSE_TIMEOUT too (issue 14, item 8): a writer of a
Collective store that never completes MPI_File_open (H5Fcreate) or the collective write of a
dataset (H5Dwrite) leaves the others blocked inside MPI-IO, where no nonblocking wait of Ecluse
can see them; the watchdog thread ends them with exit status 124 and one line naming the store,
the file and the call, within the timeout. tests/fault/hdf5_stall_program.cpp stalls its last
rank through the MPI profiling interface."""
import pathlib
import re
import subprocess
import sys
import time

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from mpirun import BUILD, child_env, mpiexec  # noqa: E402

TIMEOUT = 2


def hydra():
    """MPICH's launcher reports the signal it killed the stalled rank with, not our 124."""
    version = subprocess.run([mpiexec(), "--version"], capture_output=True, text=True).stdout
    return "HYDRA" in version
PROGRAM = BUILD / "tests" / "mpi" / "hdf5_stall_program"


@pytest.mark.parametrize("approach,ranks,stall,operation,waiting_rank", [
    ("tp", 3, "open", "H5Fcreate (collective open)", 0),
    ("tp", 3, "write", "H5Dwrite (collective)", 0),
    ("dc", 4, "write", "H5Dwrite (collective)", 1),
])
def test_a_writer_stalled_in_mpi_io_ends_every_writer_with_124(tmp_path, approach, ranks, stall,
                                                               operation, waiting_rank):
    out = tmp_path / "out"
    env = dict(child_env(), ECLUSE_TIMEOUT=str(TIMEOUT))
    start = time.monotonic()
    result = subprocess.run([mpiexec(), "-n", str(ranks), str(PROGRAM), approach, stall, str(out)],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    elapsed = time.monotonic() - start
    output = result.stdout + result.stderr
    assert f"stalling in {stall}" in output, output
    writers = ranks if approach == "tp" else ranks // 2
    line = (rf"^ecluse: world rank {waiting_rank}: timeout \(ECLUSE_TIMEOUT={TIMEOUT} s\) waiting "
            rf"in store 'shared' for {re.escape(operation)} of file '{re.escape(str(out))}/stall_It0.h5' "
            rf"\(a collective HDF5 call over MPI-IO among {writers} ranks\): one of them died, or "
            r"is blocked elsewhere, or is slower than the timeout; see the other ranks' output, "
            r"or raise ECLUSE_TIMEOUT\.$")
    assert re.search(line, result.stderr, re.M), output
    assert result.returncode == 124 or (hydra() and result.returncode != 0), output
    # Start-up and teardown of a few processes on a loaded machine; the stall itself is 60 s.
    assert elapsed < TIMEOUT + 20, f"{elapsed:.1f} s"
    assert not list(out.rglob("*.h5")), "no final-named file for an iteration never written"
