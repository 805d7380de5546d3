"""A killed run must leave nothing in /dev/shm, and the other processes must not hang."""
import os
import pathlib
import re
import shutil
import subprocess
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("ECLUSE_BUILD", ROOT / "build"))


def ecluse_segments():
    return {p.name for p in pathlib.Path("/dev/shm").iterdir() if p.name.startswith("ecluse-")}


def mpi_env():
    return dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                OMPI_MCA_rmaps_base_oversubscribe="1", ECLUSE_TIMEOUT="20")


@pytest.mark.parametrize("victim", ["client", "server"])
def test_killed_process_leaves_no_segment_and_nobody_hangs(tmp_path, victim):
    before = ecluse_segments()
    mpiexec = os.environ.get("ECLUSE_MPIEXEC") or shutil.which("mpiexec.openmpi") or "mpiexec"
    start = time.monotonic()
    result = subprocess.run([mpiexec, "-n", "4", str(BUILD / "tests" / "mpi" / "dc_crash_program"), victim],
                            cwd=tmp_path, env=mpi_env(), capture_output=True, text=True, timeout=120)
    elapsed = time.monotonic() - start
    assert result.returncode != 0, "a run with a killed process must fail"
    assert elapsed < 60, f"the job took {elapsed:.1f} s to end after the kill"
    assert ecluse_segments() - before == set(), "shared-memory segments left in /dev/shm"


def test_calls_after_a_lost_server_keep_failing(tmp_path):
    """A client told that its dedicated core is gone gets the same error, with the first cause,
    from every later write and end_iteration: none returns OK for data that goes nowhere.
    Under MPI's error recovery, so that the client runs on after the death."""
    mpiexec = os.environ.get("ECLUSE_MPIEXEC") or shutil.which("mpiexec.openmpi") or "mpiexec"
    version = subprocess.run([mpiexec, "--version"], capture_output=True, text=True).stdout
    flags = ["-disable-auto-cleanup"] if "HYDRA" in version else ["--enable-recovery"]
    result = subprocess.run([mpiexec, "-n", "4", *flags,
                             str(BUILD / "tests" / "mpi" / "dc_crash_program"), "server-again"],
                            cwd=tmp_path, env=dict(mpi_env(), ECLUSE_TIMEOUT="5"),
                            capture_output=True, text=True, timeout=120)
    first = re.search(r"^rank 0: (the Ecluse server of this node \(process \d+\) is gone .*)$",
                      result.stderr, re.MULTILINE)
    assert first, result.stderr
    for call in ("write", "end_iteration"):
        assert (f"rank 0: again: {call}: ECLUSE_CHANNEL_ERROR: an earlier call found that "
                f"{first.group(1)} Nothing handed over since is stored: stop and finalize (the "
                "run report says what was lost).") in result.stderr, result.stderr
