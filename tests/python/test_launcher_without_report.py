"""No silent loss when the run writes no report (issue 14): `ecluse run` learns what was not
stored from the run report only, so a run with `ECLUSE_REPORT=none`, or whose report directory
refuses the file, used to end with `ecluse run` exiting 0 after failed stores, in a program that
does not check Ecluse's return codes (as Damaris programs often do not). Rank 0 now hands
`ecluse run` a copy of the report in the launcher's temporary directory, and the survivors of a
lost process their partial report, whenever the report has no file of its own.

The store failure is deterministic and needs no root: a directory stands where the store writes
iteration 3 of writer 0 (`<simulation>_It3_Pr0.h5.part`), which the store refuses to replace."""
import pathlib
import re
import socket
import subprocess
import sys
import textwrap
import time

import h5py
import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from mpirun import child_env, mpiexec  # noqa: E402

ITERATIONS = 6
VALUES = 256

CONFIG = """<simulation name="quiet" xmlns="urn:ecluse:config:1">
  <architecture><domains count="1"/>ARCHITECTURE<buffer size="4MiB"/></architecture>
  <data><layout name="l" type="int" dimensions="{values}"/><variable name="v" layout="l"/></data>
  <storage><store name="files" type="HDF5"><option key="FilesPath">out</option></store>
  </storage>
  <log LogLevel="error"/>
</simulation>
""".replace("{values}", str(VALUES))

# (ranks, architecture, writers: the ranks that write files)
APPROACHES = {
    "tp": (2, '<dedicated cores="0" nodes="0"/>', 2),
    "dc": (3, '<dedicated cores="1" nodes="0"/><virtual-nodes ranks-per-node="3"/>', 1),
    "dn": (3, '<dedicated cores="0" nodes="1"/><virtual-nodes ranks-per-node="1"/>', 1),
}

# A careless program: every Ecluse error is swallowed, and it ends with status 0.
SIMULATION = """
import numpy as np
import ecluse
try:
    with ecluse.Session("quiet.xml") as s:
        if s.is_client:
            rank = s.client_comm.Get_rank()
            for it in range(ITERATIONS):
                try:
                    s.write("v", np.arange(VALUES, dtype=np.int32) + it * 100000 + rank * 10)
                    s.end_iteration()
                except ecluse.Error:
                    pass
except ecluse.Error:
    pass
"""


@pytest.mark.parametrize("report", ["none", "refused"])
@pytest.mark.parametrize("approach", ["tp", "dc", "dn"])
def test_a_run_without_its_report_still_makes_ecluse_run_exit_non_zero(tmp_path, approach,
                                                                         report):
    ranks, architecture, writers = APPROACHES[approach]
    (tmp_path / "quiet.xml").write_text(CONFIG.replace("ARCHITECTURE", architecture))
    (tmp_path / "sim.py").write_text(textwrap.dedent(SIMULATION).replace(
        "ITERATIONS", str(ITERATIONS)).replace("VALUES", str(VALUES)))
    (tmp_path / "out" / "quiet_It3_Pr0.h5.part").mkdir(parents=True)  # the store cannot create it
    (tmp_path / "a-file").write_text("not a directory\n")
    # "refused": a report path under a regular file, which no process (root included) can create.
    where = "none" if report == "none" else str(tmp_path / "a-file" / "quiet-report.json")
    result = subprocess.run([sys.executable, "-m", "ecluse", "run", "--", mpiexec(), "-n",
                             str(ranks), sys.executable, "sim.py"], cwd=tmp_path,
                            env=dict(child_env(), ECLUSE_TIMEOUT="60", ECLUSE_REPORT=where),
                            capture_output=True, text=True, timeout=300)
    output = result.stdout + result.stderr
    assert "'" + str(tmp_path / "out" / "quiet_It3_Pr0.h5.part") + "' already exists" in output
    # The program ended 0 as if nothing happened; the launcher's status shows the loss.
    assert result.returncode == 1, output
    assert ("ecluse run: the run's report (not kept: ECLUSE_REPORT=none, or its file could not "
            "be written): 1 store(s) failed in 1 (rank, iteration) pair(s): what they were to "
            "store is not on disk") in result.stderr, output
    assert not list(tmp_path.glob("quiet-report*.json")), "a report where none was asked for"
    # Every other (writer, iteration) pair is stored, with what was written.
    files = sorted((tmp_path / "out").glob("*.h5"))
    assert len(files) == writers * ITERATIONS - 1, (approach, [f.name for f in files])
    for path in files:
        with h5py.File(path, "r") as f:
            for name, dataset in f["v"].items():
                it = int(dataset.attrs["iteration"])
                source = int(name.lstrip("P"))
                np.testing.assert_array_equal(
                    dataset[()], np.arange(VALUES, dtype=np.int32) + it * 100000 + source * 10)


def test_a_complete_run_without_its_report_still_exits_zero(tmp_path):
    """The copy does not turn a clean run into a failure."""
    ranks, architecture, _ = APPROACHES["dc"]
    (tmp_path / "quiet.xml").write_text(CONFIG.replace("ARCHITECTURE", architecture))
    (tmp_path / "sim.py").write_text(textwrap.dedent(SIMULATION).replace(
        "ITERATIONS", str(ITERATIONS)).replace("VALUES", str(VALUES)))
    result = subprocess.run([sys.executable, "-m", "ecluse", "run", "--", mpiexec(), "-n",
                             str(ranks), sys.executable, "sim.py"], cwd=tmp_path,
                            env=dict(child_env(), ECLUSE_TIMEOUT="60", ECLUSE_REPORT="none"),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "ecluse run:" not in result.stderr, result.stderr
    assert len(list((tmp_path / "out").glob("*.h5"))) == ITERATIONS
    assert not list(tmp_path.glob("*.json"))


def test_a_failed_initialize_ignored_by_the_program_makes_ecluse_run_exit_non_zero(tmp_path):
    """A program that goes on without Ecluse after its initialize failed (the error caught and
    dropped, as a C or Fortran code that does not check return codes does) writes nothing and
    ends 0; a run that never initialized writes no report. `ecluse run` used to exit 0."""
    ranks, architecture, _ = APPROACHES["dc"]
    (tmp_path / "quiet.xml").write_text(
        CONFIG.replace("ARCHITECTURE", architecture).replace('layout="l"/>', 'layout="m"/>'))
    (tmp_path / "sim.py").write_text(textwrap.dedent(SIMULATION).replace(
        "ITERATIONS", str(ITERATIONS)).replace("VALUES", str(VALUES)))
    result = subprocess.run([sys.executable, "-m", "ecluse", "run", "--", mpiexec(), "-n",
                             str(ranks), sys.executable, "sim.py"], cwd=tmp_path,
                            env=dict(child_env(), ECLUSE_TIMEOUT="60"),
                            capture_output=True, text=True, timeout=300)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "ecluse run: the run: Ecluse's initialize failed: " in result.stderr, output
    assert "uses layout 'm' which is not defined" in result.stderr, output
    assert ("the program ran on without Ecluse, which stored nothing of it"
            in result.stderr), output
    assert result.stderr.count("ecluse run: ") == 1, result.stderr  # rank 0's note only
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def test_a_failed_run_followed_by_a_clean_one_under_one_ecluse_run_still_counts(tmp_path):
    """A job script that runs the simulation twice under one `ecluse run` (two phases, one
    report path): the second run's initialize moves the first's report to .previous and its own
    replaces it, and `ecluse run` reads its list only at the end. It used to see only the clean
    second report and exit 0; the first run's report is now kept for it at that initialize."""
    ranks, architecture, _ = APPROACHES["dc"]
    (tmp_path / "quiet.xml").write_text(CONFIG.replace("ARCHITECTURE", architecture))
    (tmp_path / "quiet2.xml").write_text(CONFIG.replace("ARCHITECTURE", architecture)
                                         .replace(">out<", ">out2<"))
    (tmp_path / "sim.py").write_text(textwrap.dedent(SIMULATION).replace(
        "ITERATIONS", str(ITERATIONS)).replace("VALUES", str(VALUES)))
    (tmp_path / "sim2.py").write_text((tmp_path / "sim.py").read_text().replace(
        "quiet.xml", "quiet2.xml"))
    (tmp_path / "out" / "quiet_It3_Pr0.h5.part").mkdir(parents=True)  # phase 1 loses one file
    phase = f"{mpiexec()} -n {ranks} {sys.executable}"
    result = subprocess.run([sys.executable, "-m", "ecluse", "run", "--", "sh", "-c",
                             f"{phase} sim.py && {phase} sim2.py"], cwd=tmp_path,
                            env=dict(child_env(), ECLUSE_TIMEOUT="60"),
                            capture_output=True, text=True, timeout=300)
    output = result.stdout + result.stderr
    assert len(list((tmp_path / "out2").glob("*.h5"))) == ITERATIONS, output  # phase 2 clean
    assert result.returncode == 1, output
    assert ("ecluse run: an earlier run of this command (simulation 'quiet'; its report was "
            "replaced by a later run's and moved to <report>.previous): 1 store(s) failed in 1 "
            "(rank, iteration) pair(s)") in result.stderr, output
    assert result.stderr.count("ecluse run: ") == 1, result.stderr  # the clean run says nothing
    assert output.count("least cost: ") == 2, output  # one line per run


# A program that retries: its first configuration is refused, it tries a second one.
RETRYING = """
import numpy as np
import ecluse
for config in CONFIGS:
    try:
        session = ecluse.Session(config)
    except ecluse.Error:
        continue
    with session as s:
        if s.is_client:
            rank = s.client_comm.Get_rank()
            for it in range(ITERATIONS):
                s.write("v", np.arange(VALUES, dtype=np.int32) + it * 100000 + rank * 10)
                s.end_iteration()
"""

UNDEFINED_LAYOUT = ("bad.xml:3:55: variable 'v' uses layout 'm' which is not defined. Fix the "
                    'name or define it with <layout name="m" type="..." dimensions="..."/>.')


def superseded_note(message, times=1):
    """The pattern of `ecluse run`'s note of `times` identical failed initializes that a later
    one of the same process superseded (`{pid}` in `message`: any pid)."""
    failed, failures = ("failed", "failure is") if times == 1 else (f"failed {times} times",
                                                                     "failures are")
    text = (f"ecluse run: note: the run: Ecluse's initialize {failed}, then a later initialize "
            f"of the same process (pid {{pid}}) succeeded, so the {failures} not counted: "
            f"{message}")
    return re.escape(text).replace(re.escape("{pid}"), r"\d+")


def run_retrying(tmp_path, configs):
    """`ecluse run` of the retrying program under DC, trying `configs` in turn."""
    ranks, architecture, _ = APPROACHES["dc"]
    (tmp_path / "quiet.xml").write_text(CONFIG.replace("ARCHITECTURE", architecture))
    (tmp_path / "bad.xml").write_text(
        CONFIG.replace("ARCHITECTURE", architecture).replace('layout="l"/>', 'layout="m"/>'))
    (tmp_path / "sim.py").write_text(textwrap.dedent(RETRYING).replace(
        "ITERATIONS", str(ITERATIONS)).replace("VALUES", str(VALUES)).replace(
        "CONFIGS", repr(configs)))
    return subprocess.run([sys.executable, "-m", "ecluse", "run", "--", mpiexec(), "-n",
                           str(ranks), sys.executable, "sim.py"], cwd=tmp_path,
                          env=dict(child_env(), ECLUSE_TIMEOUT="60"),
                          capture_output=True, text=True, timeout=300)


def stored_values(tmp_path):
    """Every stored (iteration, source) block, checked value for value."""
    files = sorted((tmp_path / "out").glob("*.h5"))
    for path in files:
        with h5py.File(path, "r") as f:
            for name, dataset in f["v"].items():
                it = int(dataset.attrs["iteration"])
                np.testing.assert_array_equal(
                    dataset[()],
                    np.arange(VALUES, dtype=np.int32) + it * 100000 + int(name.lstrip("P")) * 10)
    return len(files)


@pytest.mark.parametrize("failures", [1, 2])
def test_a_failed_initialize_retried_with_success_does_not_fail_ecluse_run(tmp_path, failures):
    """The first initialize fails (a configuration error), the program tries another file and
    runs with Ecluse, losing nothing: the first failure's note used to make `ecluse run` exit 1.
    The successful initialize withdraws it; the launcher says what happened, without failing."""
    result = run_retrying(tmp_path, ["bad.xml"] * failures + ["quiet.xml"])
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert stored_values(tmp_path) == ITERATIONS, output
    notes = [line for line in result.stderr.splitlines() if line.startswith("ecluse run: ")]
    assert len(notes) == 1, result.stderr  # rank 0's failures only, said once
    assert re.fullmatch(superseded_note(UNDEFINED_LAYOUT, failures), notes[0]), notes
    assert "Ecluse's initialize failed: " not in result.stderr, result.stderr
    assert output.count("least cost: ") == 1, output  # the successful run's report


def test_a_failed_initialize_after_a_successful_one_still_fails_ecluse_run(tmp_path):
    """A success withdraws only the failures before it: the same process failing again later
    (and going on without Ecluse) still makes `ecluse run` exit 1, and the earlier failure is
    still said as superseded."""
    result = run_retrying(tmp_path, ["bad.xml", "quiet.xml", "bad.xml"])
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert stored_values(tmp_path) == ITERATIONS, output
    notes = [line for line in result.stderr.splitlines() if line.startswith("ecluse run: ")]
    assert len(notes) == 2, result.stderr
    assert re.fullmatch(superseded_note(UNDEFINED_LAYOUT), notes[0]), notes
    assert notes[1] == (f"ecluse run: the run: Ecluse's initialize failed: {UNDEFINED_LAYOUT} "
                        "(nothing of this process was handed to Ecluse: "
                        "its later calls failed too): the program ran on without Ecluse, "
                        "which stored nothing of it"), notes


# Holds the output lock of `out` (a run in progress) until the file `release` appears.
HOLDER = """
import os, time
import ecluse
with ecluse.Session("holder.xml"):
    open("holding", "w").close()
    while not os.path.exists("release"):
        time.sleep(0.05)
"""

# Retries while another run holds the output lock; lets it go after its first refusal.
WAITING = """
import time
import numpy as np
import ecluse
from mpi4py import MPI
for attempt in range(200):
    try:
        session = ecluse.Session("quiet.xml")
        break
    except ecluse.Error:
        if MPI.COMM_WORLD.Get_rank() == 0:
            open("release", "w").close()
        time.sleep(0.1)
with session as s:
    if s.is_client:
        rank = s.client_comm.Get_rank()
        for it in range(ITERATIONS):
            s.write("v", np.arange(VALUES, dtype=np.int32) + it * 100000 + rank * 10)
            s.end_iteration()
"""


def test_an_initialize_retried_once_another_runs_lock_is_released_does_not_fail_ecluse_run(
        tmp_path):
    """The first initialize is refused by another run's output lock; the program waits and
    retries, and once that run ended its initialize succeeds and it loses nothing."""
    ranks, architecture, _ = APPROACHES["dc"]
    (tmp_path / "quiet.xml").write_text(CONFIG.replace("ARCHITECTURE", architecture))
    (tmp_path / "holder.xml").write_text(CONFIG.replace("ARCHITECTURE", APPROACHES["tp"][1]))
    (tmp_path / "holder.py").write_text(textwrap.dedent(HOLDER))
    (tmp_path / "sim.py").write_text(textwrap.dedent(WAITING).replace(
        "ITERATIONS", str(ITERATIONS)).replace("VALUES", str(VALUES)))
    holder = subprocess.Popen([mpiexec(), "-n", "1", sys.executable, "holder.py"], cwd=tmp_path,
                              env=dict(child_env(), ECLUSE_TIMEOUT="60", ECLUSE_REPORT="none"),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        for _ in range(600):
            if (tmp_path / "holding").exists() or holder.poll() is not None:
                break
            time.sleep(0.05)
        assert (tmp_path / "holding").exists(), holder.communicate(timeout=60)[0]
        result = subprocess.run([sys.executable, "-m", "ecluse", "run", "--", mpiexec(), "-n",
                                 str(ranks), sys.executable, "sim.py"], cwd=tmp_path,
                                env=dict(child_env(), ECLUSE_TIMEOUT="60"),
                                capture_output=True, text=True, timeout=300)
    finally:
        (tmp_path / "release").touch()
        holder_output = holder.communicate(timeout=120)[0]
    output = result.stdout + result.stderr
    assert holder.returncode == 0, holder_output
    assert result.returncode == 0, output
    assert stored_values(tmp_path) == ITERATIONS, output
    notes = [line for line in result.stderr.splitlines() if line.startswith("ecluse run: ")]
    assert len(notes) == 1, output  # every refusal alike: said once, with their number
    refused = (f"quiet.xml:4:12: store 'files': another run (pid {{pid}} on host "
               f"'{socket.gethostname()}') writes the same simulation into this directory "
               f"(lock file '{tmp_path / 'out' / '.quiet.ecluse-lock'}'). Fix: wait for it to "
               "end, give this run another FilesPath or simulation name, or remove the lock "
               "file if that run is no longer alive")
    times = re.search(r"initialize failed (\d+) times, then", notes[0])
    assert re.fullmatch(superseded_note(refused, int(times.group(1)) if times else 1),
                        notes[0]), notes


# A program that never calls finalize (Damaris's own examples/storage/life-hdf5.c calls
# damaris_stop, then MPI_Finalize): mpi4py's MPI_Finalize at exit releases the session, and no
# report is written. LOSE adds a write the configuration refuses and one never ended.
UNFINALIZED = """
import numpy as np
import ecluse
s = ecluse.Session("quiet.xml")
if s.is_client:
    rank = s.client_comm.Get_rank()
    for it in range(ITERATIONS):
        s.write("v", np.arange(VALUES, dtype=np.int32) + it * 100000 + rank * 10)
        s.end_iteration()
    if LOSE:
        s.write("v", np.zeros(VALUES, dtype=np.int32))
        try:
            s.write("v", np.ones(VALUES, dtype=np.int32))  # a second write: refused
        except ecluse.Error:
            pass
    else:
        s.stop()
# no close, no finalize
"""


def run_unfinalized(tmp_path, approach, lose):
    ranks, architecture, _ = APPROACHES[approach]
    (tmp_path / "quiet.xml").write_text(CONFIG.replace("ARCHITECTURE", architecture))
    (tmp_path / "sim.py").write_text(textwrap.dedent(UNFINALIZED).replace(
        "ITERATIONS", str(ITERATIONS)).replace("VALUES", str(VALUES)).replace("LOSE", str(lose)))
    return subprocess.run([sys.executable, "-m", "ecluse", "run", "--", mpiexec(), "-n",
                           str(ranks), sys.executable, "sim.py"], cwd=tmp_path,
                          env=dict(child_env(), ECLUSE_TIMEOUT="60"),
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("approach", ["tp", "dc"])
def test_a_run_without_finalize_is_said_by_ecluse_run(tmp_path, approach):
    """Nothing lost: every file stored, exit 0, and one line saying why there is no report."""
    result = run_unfinalized(tmp_path, approach, False)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "MPI_Finalize was called before ecluse_finalize" in result.stderr, output
    assert result.stderr.count("ecluse run: ") == 1, result.stderr
    assert ("ecluse run: note: the run called MPI_Finalize before ecluse_finalize "
            "(damaris_finalize), so it wrote no report (no summary, no figures); no process said "
            "it knew of data not stored. Call it before MPI_Finalize to get the report\n"
            in result.stderr), output
    assert not list(tmp_path.glob("quiet-report*.json"))
    writers = APPROACHES[approach][2]
    assert len(list((tmp_path / "out").glob("*.h5"))) == writers * ITERATIONS, output


def test_a_run_without_finalize_that_lost_writes_makes_ecluse_run_exit_non_zero(tmp_path):
    """Each process says what it knew was lost, since no report will: a refused write and the
    writes of an iteration never ended (finalize would have stored them)."""
    result = run_unfinalized(tmp_path, "tp", True)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    said = re.findall(r"ecluse run: the run \(world rank (\d), pid \d+\) called MPI_Finalize "
                      r"before ecluse_finalize \(damaris_finalize\), so it wrote no report; that "
                      r"process knew of (.*) \(see the run's errors above\)\n", result.stderr)
    assert sorted(said) == [(str(r), f"1 write(s) refused with an error, the writes of "
                             f"iteration {ITERATIONS}, never ended by an end_iteration")
                            for r in range(2)], output
    assert "ecluse run: note:" not in result.stderr, output
    assert len(list((tmp_path / "out").glob("*.h5"))) == 2 * ITERATIONS, output
