"""The last line of a run's summary (issue 15): under `ecluse run` the approach the model predicts
would have cost least for this run and by how much, the same pick as `ecluse advise
--from-report`; launched otherwise, the command that gives it."""
import re
import shutil
import subprocess
import sys

import pytest

from mpirun import BUILD, ROOT, child_env, mpiexec
from ecluse import cli

EXAMPLE = BUILD / "examples" / "ecluse_example_simulation"
# Every figure with its source: the model's power, the run's energy label (docs/report.md).
POWER = r"power (?P<power>\S+) \[\w+\]"
MEASURED = r"measured [\d.]+ k?J \[(?P<label>[\w/-]+)\]"
LINE = re.compile(r"  least cost: (?:(?P<best>\S+), (?P<saving>\d+\.\d)% less energy than this "
                  r"run's (?P<own>\S+) \(model: [\d.]+ k?J vs [\d.]+ k?J, " + POWER + "; " +
                  MEASURED + r"\)"
                  r"|this run's (?P<same>\S+) \(model: [\d.]+ k?J, " + POWER.replace("power>", "power2>") +
                  r"; next best \S+ \d+\.\d% more; " + MEASURED.replace("label>", "label2>") +
                  r"\))$")


def example(tmp_path, ranks, dedicated_cores=0):
    text = (ROOT / "examples" / "simulation.xml").read_text()
    text = text.replace('<dedicated cores="0" nodes="0"/>',
                        f'<dedicated cores="{dedicated_cores}" nodes="0"/>')
    (tmp_path / "simulation.xml").write_text(text)
    return [mpiexec(), "-n", str(ranks), str(EXAMPLE), "simulation.xml", "4"]


def ecluse_run(tmp_path, command, *options):
    return subprocess.run([sys.executable, "-m", "ecluse", "run", *options, "--", *command],
                          cwd=tmp_path, env=child_env(), capture_output=True, text=True,
                          timeout=300)


def advised_least_energy(capsys, report):
    assert cli.main(["advise", "--from-report", str(report)]) == 0
    out = capsys.readouterr().out
    return re.search(r"^least energy: (\S+) ", out, re.M).group(1)


def test_under_ecluse_run_the_summary_ends_with_the_models_pick(tmp_path, capsys):
    result = ecluse_run(tmp_path, example(tmp_path, 2))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "ecluse report (heat-report.json):" in lines
    m = LINE.match(lines[-1])
    assert m, lines[-1]
    assert m.group("own") == "TP" or m.group("same") == "TP"
    assert (m.group("best") or m.group("same")) == advised_least_energy(
        capsys, tmp_path / "heat-report.json")
    assert not any(line.startswith("  least cost: run `ecluse advise") for line in lines)


def test_a_dedicated_core_run_is_compared_with_itself(tmp_path, capsys):
    result = ecluse_run(tmp_path, example(tmp_path, 3, dedicated_cores=1))
    assert result.returncode == 0, result.stderr
    m = LINE.match(result.stdout.splitlines()[-1])
    assert m and "DC(1)" in (m.group("own"), m.group("same")), result.stdout
    assert (m.group("best") or m.group("same")) == advised_least_energy(
        capsys, tmp_path / "heat-report.json")


def test_launched_directly_the_summary_ends_with_how_to_get_it(tmp_path):
    command = example(tmp_path, 2)
    result = subprocess.run(command, cwd=tmp_path, env=child_env(), capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == (
        "  least cost: run `ecluse advise --from-report heat-report.json` for the model's "
        "answer (given here when launched with `ecluse run -- <command>`)")


def test_a_run_the_model_cannot_use_says_why(tmp_path):
    # The program never calls ecluse_start: its clients have no compute phase to measure.
    program = BUILD / "tests" / "report" / "long_run_program"
    result = ecluse_run(tmp_path, [mpiexec(), "-n", "2", str(program), "50", "5"])
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == (
        f"  least cost: not predicted: {tmp_path / 'long-report.json'}: no compute phase of "
        "the simulation role: cannot measure the compute time per iteration")


def test_the_commands_exit_code_is_kept_and_no_report_means_no_line(tmp_path):
    result = ecluse_run(tmp_path, [shutil.which("false")])
    assert result.returncode == 1 and result.stdout == ""
    result = ecluse_run(tmp_path, [])
    assert result.returncode == 2
    assert "give the command to run after --" in result.stderr


FAKE_RUN = """
import json, os, sys
doc = {"schema": "ecluse-report/2", "complete": COMPLETE,
       "iterations": {"store_errors": ERRORS, "failed_iterations": {"count": ERRORS}},
       "statistics": {"client.refused_writes": REFUSED, "insitu.failures": INSITU}}
with open("fake-report.json", "w") as f:
    json.dump(doc, f)
with open(os.environ["ECLUSE_RUN_REPORTS"], "a") as f:
    f.write(os.path.abspath("fake-report.json") + "\\n")
"""


def test_a_run_that_lost_data_ends_non_zero_even_if_its_program_did_not(tmp_path):
    """A Damaris program that never checks return codes ends 0 after its stores failed: the
    launcher's exit status shows the loss the report counts (no silent loss)."""
    def fake(errors, complete, refused=0, insitu=0):
        script = FAKE_RUN.replace("ERRORS", str(errors)).replace("COMPLETE", str(complete))
        script = script.replace("REFUSED", str(refused)).replace("INSITU", str(insitu))
        return ecluse_run(tmp_path, [sys.executable, "-c", script])
    result = fake(3, True)
    assert result.returncode == 1
    assert (f"ecluse run: {tmp_path / 'fake-report.json'}: 3 store(s) failed in 3 (rank, "
            "iteration) pair(s): what they were to store is not on disk, all of it or a part "
            "(see the run's errors above)"
            in result.stderr), result.stderr
    result = fake(0, False)
    assert result.returncode == 1
    assert "the run did not complete (a partial report)" in result.stderr
    # Writes refused with an error (a block that never fits the room left): told to the
    # program, which may not check, and not handed over.
    result = fake(0, True, refused=4)
    assert result.returncode == 1
    assert (f"ecluse run: {tmp_path / 'fake-report.json'}: 4 write(s) refused with an error "
            "(client.refused_writes): that data was not handed over (see the run's errors "
            "above)" in result.stderr), result.stderr
    # In-situ work that failed (a script that raised, a signal action not found): the data is
    # stored, the results the run was to make are not.
    result = fake(0, True, insitu=2)
    assert result.returncode == 1
    assert (f"ecluse run: {tmp_path / 'fake-report.json'}: 2 run(s) of in-situ work failed "
            "(insitu.failures: <pyscript>s, plugin and signal actions): their results are "
            "missing (see the run's errors above)" in result.stderr), result.stderr
    result = fake(0, True)
    assert result.returncode == 0 and "ecluse run:" not in result.stderr


def test_ctrl_c_reaches_the_command_and_ecluse_run_waits_for_it(tmp_path):
    """Ctrl-C (SIGINT to the terminal's process group) killed the launcher 0.25 s later and left
    the ranks running, writing on after the prompt came back. `ecluse run` now waits for the
    command to end by itself, and takes its exit code."""
    import os
    import signal
    import time
    script = ('trap "echo ended >> ended.txt; exit 3" INT; echo started > started.txt; '
              'i=0; while [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done')
    process = subprocess.Popen([sys.executable, "-m", "ecluse", "run", "--", "sh", "-c", script],
                               cwd=tmp_path, env=child_env(), start_new_session=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (tmp_path / "started.txt").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGINT)  # what the terminal does
    out, err = process.communicate(timeout=60)
    assert process.returncode == 3, out + err
    assert "Traceback" not in err, err
    assert (tmp_path / "ended.txt").read_text() == "ended\n"


def test_a_command_ended_by_a_signal_gives_128_plus_its_number(tmp_path):
    result = ecluse_run(tmp_path, ["sh", "-c", "kill -KILL $$"])
    assert result.returncode == 128 + 9, result.stderr


@pytest.mark.parametrize("name", ["SIGTERM", "SIGINT"])
def test_a_signal_to_ecluse_run_alone_is_passed_on_to_the_command(tmp_path, name):
    """A signal sent to `ecluse run` only (a batch script's kill, an IDE's interrupt) reaches
    the command once it is clear that the command did not get it itself (2 s later)."""
    import signal
    import time
    trap = name[3:]
    script = (f'trap "echo ended > ended.txt; exit 4" {trap}; echo started > started.txt; '
              'i=0; while [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done')
    process = subprocess.Popen([sys.executable, "-m", "ecluse", "run", "--", "sh", "-c", script],
                               cwd=tmp_path, env=child_env(), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (tmp_path / "started.txt").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(getattr(signal, name))  # to `ecluse run` alone
    out, err = process.communicate(timeout=60)
    assert process.returncode == 4, out + err
    assert (tmp_path / "ended.txt").read_text() == "ended\n"
