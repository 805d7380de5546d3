"""What an outside user's study (NAS BT-IO ported to Ecluse's Damaris API, 2 CPUs) found in the
advisor, each checked where it enters: TP's time inside Ecluse in the iterations without
output, an output interval longer than the run, a failing profile run's signal, files that are
not what the option takes, and validate's ratios."""
import copy
import json
import sys

import pytest

from mpirun import ROOT

sys.path.insert(0, str(ROOT / "python"))
from ecluse import approach_runs as ar  # noqa: E402
from ecluse import validate as val  # noqa: E402
from ecluse.cli import main  # noqa: E402
from ecluse.report import Report  # noqa: E402

# TP, 2 clients on one node of a 2-CPU host, Collective store: 200 iterations, 40 outputs
# (every 5) of 19200 bytes; each client computes 1.0 s, writes 10 ms per output (0.4 s) and
# spends 0.6 s inside Ecluse in the 160 iterations without output (the Collective store takes
# part in every iteration): the run took 2.0 s.
TP2 = {
    "schema": "ecluse-report/2", "approach": "tp", "complete": True,
    "architecture": {"dedicated_cores": 0, "dedicated_nodes": 0, "ranks_per_node": 2,
                     "buffer_bytes": 67108864, "domains": 4},
    "ranks": 2, "nodes": 1, "hosts": 1, "completion_time_s": 2.0,
    "energy": {"source": "model", "quality": "modelled", "calibration": "default-uncalibrated",
               "joules": 450.0},
    "roles": {"simulation": {"ranks": 2, "wall_s": 4.0, "cpu_s": 3.0, "finalize_wait_s": 0.0,
                             "phases": {"setup": {"wall_s": 0.0, "cpu_s": 0.0},
                                        "compute": {"wall_s": 2.0, "cpu_s": 2.0},
                                        "write": {"wall_s": 1.0, "cpu_s": 1.0},
                                        "store": {"wall_s": 1.0, "cpu_s": 0.5}}}},
    "iterations": {"count": 200, "first": 0, "last": 199,
                   "outputs": {"count": 40, "first": 0, "last": 195, "every": 5,
                               "every_max": 5},
                   "client_write_s": {"count": 80, "sum": 0.8, "slowest_rank_mean": 0.01},
                   "client_quiet_s": {"count": 320, "sum": 1.2, "slowest_rank_mean": 0.00375},
                   "client_bytes": {"count": 80, "sum": 768000.0},
                   "server_store_s": {"count": 80, "sum": 0.6, "slowest_rank_mean": 0.0075}},
}


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def write(tmp_path, doc, name="run.json"):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


# --- TP's time inside Ecluse in the iterations without output ------------------------------

def test_advice_from_a_tp_report_predicts_the_run_itself_with_its_quiet_iterations(capsys,
                                                                                    tmp_path):
    path = write(tmp_path, TP2)
    code, out, err = run(capsys, "advise", "--from-report", path, "--host-cpus", 2, "--json")
    assert code == 0, err
    doc = json.loads(out)
    tp = next(p for p in doc["predictions"] if p["approach"] == "TP")
    # 1.0 s of compute + 0.6 s in the quiet iterations + 40 x 10 ms: the run's own 2.0 s (the
    # quiet iterations were in no term: 1.4 s, 30% short, and the pick leaned to TP).
    assert tp["compute_s"] == pytest.approx(1.6) and tp["io_s"] == pytest.approx(0.4)
    assert tp["time_s"] == pytest.approx(2.0)
    dc = next(p for p in doc["predictions"] if p["approach"] == "DC(1)")
    # DC(1)'s one client computes the 2.0 s alone; its clients do not run the stores.
    assert dc["compute_s"] == pytest.approx(2.0)
    assert {"name": "TP per-iteration cost",
            "value": "600.0 ms per client inside Ecluse in the iterations without output "
                     "(iterations.client_quiet_s): TP's compute +60.0%",
            "source": "measured"} in doc["inputs"]


def test_a_dc_report_has_no_quiet_term():
    doc = copy.deepcopy(TP2)
    doc["approach"] = "dc"
    assert Report.from_dict(doc).tp_quiet_s_per_client() == 0.0
    assert Report.from_dict(TP2).tp_quiet_s_per_client() == pytest.approx(0.6)
    without = copy.deepcopy(TP2)
    del without["iterations"]["client_quiet_s"]
    assert Report.from_dict(without).tp_quiet_s_per_client() == 0.0


def test_the_profiles_tp_runs_count_the_quiet_iterations_with_the_compute():
    run_ = ar.ApproachRun("tp", 2, 2, 0, 0, clients=2)
    p = ar.point(run_, Report.from_dict(TP2), {}, 5)
    # compute phase 1.0 s per client + 0.6 s inside Ecluse without output (it used to fall
    # into the fixed overhead: 232 ms per run of BT-IO, charged to a 4-iteration run as well)
    assert p["compute_s"] == pytest.approx(1.6)
    loop = ar.point(run_, Report.from_dict(TP2), {"wall_time_s": 2.0}, 5)
    # loop 2.0 - write 0.5 - store 0.5 per client + the quiet 0.6 s
    assert loop["compute_s"] == pytest.approx(1.6)


def test_validate_measures_tps_compute_with_its_quiet_iterations():
    assert val._compute_per_client(Report.from_dict(TP2)) == pytest.approx(1.6)
    doc = copy.deepcopy(TP2)
    doc["approach"] = "dc"
    assert val._compute_per_client(Report.from_dict(doc)) == pytest.approx(1.0)


# --- an output interval longer than the run ----------------------------------------------------

def test_an_output_interval_longer_than_the_run_is_refused(capsys):
    with_output = ["--t-base", 1, "--nodes", 1, "--cores-per-node", 2, "--bytes-per-output",
                   "1MB", "--bandwidth", "1GB/s", "--iterations", 4]
    code, out, err = run(capsys, "advise", *with_output, "--output-every", 5)
    # It printed "workload: 4 iterations, no output" beside "input: output: every 5".
    assert code == 2 and out == ""
    assert err == ("ecluse advise: --output-every 5 is more than --iterations 4: such a run "
                   "writes once, at iteration 0, or never, and the model would take it as "
                   "writing nothing; give --output-every 4 or less, or --from-report RUN.json "
                   "(a report counts its outputs)\n")
    code, out, _ = run(capsys, "advise", *with_output, "--output-every", 4)
    assert code == 0 and "workload: 4 iterations, output every 4, 1.000 MB per output" in out


@pytest.mark.parametrize("option", ["--output-every", "--output-every-long"])
def test_a_profile_whose_output_runs_would_write_once_is_refused(capsys, option):
    code, _, err = run(capsys, "profile", "--iterations", 4, "--bandwidth", "--output-every", 2,
                       option, 9, "--", "true", "{output_every}")
    assert code == 2
    assert err.endswith(f"ecluse profile: {option} 9 is more than --iterations 4: the output "
                        "runs would write once, at iteration 0, not at that interval; give "
                        f"{option} 4 or less, or more --iterations\n")


# --- a failing profile run says its signal -----------------------------------------------------

def test_a_profile_run_killed_by_a_signal_says_which_and_why_output_every_is_0(capsys, tmp_path,
                                                                              monkeypatch):
    monkeypatch.chdir(tmp_path)
    # A program that divides by its output interval: the compute-only runs give it 0.
    code, _, err = run(capsys, "profile", "--cores", 1, "--nodes", 1, "--", "sh", "-c",
                       "echo '[ecluse 0] info: energy: not found: pm_counters' >&2; "
                       "test {output_every} -ne 0 || kill -FPE $$", "{output_every}")
    assert code == 2
    assert "failed (exit status 136: a process killed by signal 8, SIGFPE), run in a " \
           "temporary directory:\n  " in err
    assert "\n  [ecluse 0] info: energy" not in err   # the echo is only in the command line
    assert err.rstrip().endswith("(this run measures compute only: its {output_every} was 0; "
                                 "a program that divides by its output interval must take 0 "
                                 "as \"no output\")")


def test_failure_lines_keep_the_signal_and_leave_info_and_backtraces_out():
    from ecluse import profile as prof
    stderr = ("[ecluse 0] info: energy: not found: pm_counters: no /sys/cray\n"
              "\nProgram received signal SIGFPE: Floating-point exception - erroneous arithmetic "
              "operation.\n\nBacktrace for this error:\n#0  0x7fefd32218c2 in ???\n"
              "\tat ./signal/../sysdeps/unix/sysv/linux/x86_64/libc_sigaction.c:0\n"
              "-----\nmpiexec.openmpi noticed that process rank 0 with PID 0 on node vm exited "
              "on signal 8 (Floating point exception).\n-----\n")
    assert prof.failure_lines(stderr) == (
        "Program received signal SIGFPE: Floating-point exception - erroneous arithmetic "
        "operation.\n  mpiexec.openmpi noticed that process rank 0 with PID 0 on node vm exited "
        "on signal 8 (Floating point exception).")
    assert prof.exit_text(1) == "exit status 1"
    assert prof.exit_text(139) == "exit status 139: a process killed by signal 11, SIGSEGV"
    assert prof.exit_text(-9) == "exit status -9: the launcher killed by signal 9, SIGKILL"


# --- files that are not what the option takes --------------------------------------------------

def test_a_missing_file_is_named_without_pythons_errno(capsys, tmp_path):
    code, _, err = run(capsys, "advise", "--from-report", tmp_path / "nope.json")
    assert code == 2
    assert err == f"ecluse advise: {tmp_path / 'nope.json'}: No such file or directory\n"


def test_a_profile_given_as_a_report_and_the_converse_say_which_is_which(capsys, tmp_path):
    report = write(tmp_path, TP2)
    profile = write(tmp_path, {"schema": "ecluse-profile/1"}, "p.json")
    empty = write(tmp_path, {}, "empty.json")
    code, _, err = run(capsys, "advise", "--from-report", profile)
    assert code == 2 and err == (
        f"ecluse advise: {profile}: schema is 'ecluse-profile/1', expected 'ecluse-report/2' (or "
        "the older 'ecluse-report/1'); this is a profile (ecluse profile): give it with "
        "--profile, and a run's report here\n")
    code, _, err = run(capsys, "advise", "--from-report", empty)
    assert code == 2 and err == (
        f"ecluse advise: {empty}: has no 'schema' field, expected 'ecluse-report/2' (or the older "
        "'ecluse-report/1'): give the report file a run wrote (ECLUSE_REPORT, docs/report.md)\n")
    code, _, err = run(capsys, "validate", report, "--profile", report)
    assert code == 2 and err == (
        f"ecluse validate: {report}: schema is 'ecluse-report/2', expected 'ecluse-profile/1'; "
        "this is a run's report: give it as a report (validate REPORT..., advise --from-report "
        "REPORT) and a profile with --profile\n")


# --- wording ---------------------------------------------------------------------------------

def test_one_client_one_writer_one_node_are_singular(capsys, tmp_path):
    doc = copy.deepcopy(TP2)
    doc.update(ranks=1, architecture=dict(TP2["architecture"], ranks_per_node=1))
    doc["roles"]["simulation"]["ranks"] = 1
    code, out, err = run(capsys, "advise", "--from-report", write(tmp_path, doc),
                         "--host-cpus", 1)
    assert code == 0, err
    assert "platform: 1 node x 1 core (virtual nodes on one host of 1 CPUs)" in out
    assert "input: compute: 10.000 ms per iteration on 1 client [measured]" in out
    assert "input: scalability: perfect from 1 client (one run: one point) [assumed]" in out
    assert "input: write time: 10.00 ms per output by 1 writer (TP; other writer counts: same " \
           "bandwidth) [measured]" in out


def test_a_bad_global_grid_is_a_usage_error_that_says_the_form(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["profile", "--global", "12x"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.endswith(
        "ecluse profile: error: argument --global: '12x' is not a grid NXxNYxNZ of whole "
        "numbers >= 1 (e.g. 128x128x40)\n")


# --- the <domains> of the pasted block from a profile ----------------------------------------

PROFILE = {
    "schema": "ecluse-profile/1", "cpus": 2,
    "fit": {"t_base_s": 1.0, "s_cores": {"serial": 0.0, "parallel": 1.0, "log": 0.0},
            "s_nodes": {"serial": 0.0, "parallel": 1.0, "log": 0.0}},
    "bandwidth": {"writers": [1, 2], "bytes_per_s": [1e9, 2e9]},
    "power": {"idle_watts": 100.0, "max_watts": 250.0, "id": "vm", "source": "calibration"},
}
ADVISE = ["advise", "--nodes", 1, "--cores-per-node", 2, "--iterations", 100, "--output-every",
          10, "--bytes-per-output", "1MB", "--xml"]


def test_advice_from_a_profile_keeps_the_profiled_configurations_domains(capsys, tmp_path):
    # BT-IO writes 4 blocks per client: the pasted <domains count="1"/> refused blocks 1-3.
    config = tmp_path / "bt.xml"
    config.write_text('<simulation name="bt">\n  <architecture>\n    <domains count="4"/>\n'
                      '  </architecture>\n</simulation>\n')
    doc = dict(PROFILE, command=["/bin/btio", str(config), "{iterations}", "{output_every}"])
    path = write(tmp_path, doc, "p.json")
    code, xml, err = run(capsys, *ADVISE, "--profile", path)
    assert code == 0, err
    assert xml.startswith('<architecture>\n  <domains count="4"/>\n')
    code, out, _ = run(capsys, *ADVISE[:-1], "--profile", path)
    assert (f"input: domains: 4 blocks per client (<domains count> of {config}, the profiled "
            "command's configuration; --domains N to change it) [measured]") in out.splitlines()
    code, xml, _ = run(capsys, *ADVISE, "--profile", path, "--domains", 2)
    assert xml.startswith('<architecture>\n  <domains count="2"/>\n')
    config.unlink()   # gone since: the default again
    code, out, _ = run(capsys, *ADVISE[:-1], "--profile", path)
    assert ("input: domains: 1 block per client (give --domains N when the simulation's "
            "<domains count> is N) [default]") in out.splitlines()


def test_output_sizes_that_grow_with_the_writers_are_noted_as_not_one_global_problem():
    """BT-IO as a user profiled it (its grid per rank): 14400 bytes per output on 1 writer,
    19200 on 2; the profile kept the median and the model one global problem, silently."""
    from ecluse import profile as prof
    points = [{"writers": 2, "bytes_per_output": 19200.0},
              {"writers": 1, "bytes_per_output": 14400.0}]
    assert prof.growing_output_note(points) == (
        "note: the output runs wrote different bytes per output by number of writers (14400 on "
        "1, 19200 on 2): the program's problem changes with its ranks (weak scaling?), while the "
        "model takes one global problem on every resource count and the profile keeps the "
        "median size. Keep the global problem fixed over the ranks (fill {local} in the "
        "command, or the program's own option), or profile on the rank count you will run.")
    # The same global problem (sizes within 10%: ghost cells differ by split) is not noted.
    points[0]["bytes_per_output"] = 14400.0 * 1.1
    assert prof.growing_output_note(points) is None
    assert prof.growing_output_note(points[:1]) is None
