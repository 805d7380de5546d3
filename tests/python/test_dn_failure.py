"""A dedicated node that stops answering or dies: clients fail with a clear error, in bounded time."""
import os
import pathlib
import shutil
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("ECLUSE_BUILD", ROOT / "build"))
PROGRAM = BUILD / "tests" / "mpi" / "dn_failure_program"


def run(tmp_path, victim, timeout_s="3"):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", ECLUSE_TIMEOUT=timeout_s)
    mpiexec = os.environ.get("ECLUSE_MPIEXEC") or shutil.which("mpiexec.openmpi") or "mpiexec"
    start = time.monotonic()
    result = subprocess.run([mpiexec, "-n", "3", str(PROGRAM), victim], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)
    return result, time.monotonic() - start


def test_silent_dedicated_node_makes_clients_fail_after_the_timeout(tmp_path):
    result, elapsed = run(tmp_path, "stop")
    assert result.returncode != 0
    assert ("ECLUSE_CHANNEL_ERROR: waited 3 s waiting for credit (receive memory) from the "
            "dedicated node: the dedicated node server (world rank 2) does not answer; check its "
            "log, or raise ECLUSE_TIMEOUT.") in result.stderr, result.stderr
    assert 3 <= elapsed < 40, f"{elapsed:.1f} s"


def test_killed_dedicated_node_ends_the_run_quickly(tmp_path):
    result, elapsed = run(tmp_path, "kill", timeout_s="600")
    assert result.returncode != 0
    # Either the clients see it first (same host), or the MPI runtime reports the dead process.
    ours = "the Ecluse server of this client (world rank 2, process " in result.stderr
    runtime = "signal 9" in result.stderr or "killed" in result.stderr.lower()
    assert ours or runtime, result.stderr
    assert elapsed < 40, f"the run took {elapsed:.1f} s to end (ECLUSE_TIMEOUT was 600 s)"
