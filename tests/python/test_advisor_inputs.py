"""The advisor's inputs checked where they enter: the `<domains>` of the pasted block, the
report's own output count, options refused with --from-report, usage errors instead of
tracebacks, nonsense values and damaged profiles or reports refused naming the field, the
least-cost line that keeps the command's exit code and labels its energies, and the warning of
Session.alloc's derived views."""
import copy
import json
import re
import subprocess
import sys
import textwrap

import pytest

from mpirun import BUILD, ROOT, child_env, mpiexec

sys.path.insert(0, str(ROOT / "python"))
from ecluse import least_cost  # noqa: E402
from ecluse import profile as prof  # noqa: E402
from ecluse import validate as val  # noqa: E402
from ecluse.advise import explain  # noqa: E402
from ecluse.cli import main  # noqa: E402
from ecluse.model import Approach, ModelOptions, Prediction  # noqa: E402
from ecluse.power import Power  # noqa: E402

# One client on one node (1 CPU): 200 iterations, 2 s of compute (10 ms an iteration), ONE
# output, at iteration 0, of 1 MB written in 0.5 s; no setup time. TP is the only candidate.
REPORT = {
    "schema": "ecluse-report/2", "approach": "tp", "complete": True,
    "architecture": {"dedicated_cores": 0, "dedicated_nodes": 0, "ranks_per_node": 1,
                     "buffer_bytes": 67108864, "domains": 2},
    "ranks": 1, "nodes": 1, "hosts": 1, "completion_time_s": 2.5,
    "energy": {"source": "model", "quality": "modelled", "calibration": "default-uncalibrated",
               "joules": 600.0},
    "roles": {"simulation": {"ranks": 1, "wall_s": 2.5, "cpu_s": 2.5, "finalize_wait_s": 0.0,
                             "phases": {"setup": {"wall_s": 0.0, "cpu_s": 0.0},
                                        "compute": {"wall_s": 2.0, "cpu_s": 2.0},
                                        "write": {"wall_s": 0.5, "cpu_s": 0.25}}}},
    "iterations": {"count": 200, "first": 0, "last": 199,
                   "outputs": {"count": 1, "first": 0, "last": 0, "every": None,
                               "every_max": None},
                   "client_write_s": {"count": 1, "sum": 0.5, "slowest_rank_mean": 0.5},
                   "client_bytes": {"count": 1, "sum": 1e6},
                   "server_store_s": {"count": 0, "sum": 0}},
}
PROFILE = {
    "schema": "ecluse-profile/1", "cpus": 2,
    "fit": {"t_base_s": 1.0, "s_cores": {"serial": 0.0, "parallel": 1.0, "log": 0.0},
            "s_nodes": {"serial": 0.0, "parallel": 1.0, "log": 0.0}},
    "bandwidth": {"writers": [1, 2], "bytes_per_s": [1e9, 2e9]},
    "power": {"idle_watts": 100.0, "max_watts": 250.0, "id": "vm", "source": "calibration"},
}
PLATFORM = ["--t-base", 1, "--nodes", 4, "--cores-per-node", 4, "--iterations", 100,
            "--output-every", 10, "--bytes-per-output", "1GB", "--bandwidth", "2GB/s"]
DAMAGED = "(a damaged report, or not one a run wrote: run the simulation again to rewrite it)"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def usage_error(capsys, *argv):
    """argparse's refusal: exit 2 and its message on stderr."""
    with pytest.raises(SystemExit) as exit_:
        main([str(a) for a in argv])
    assert exit_.value.code == 2
    return capsys.readouterr().err


def write(path, doc):
    # json.dumps writes NaN and Infinity as Python reads them back: damaged, as asked.
    path.write_text(json.dumps(doc))
    return path


def report(tmp_path, change=None, name="run.json"):
    doc = copy.deepcopy(REPORT)
    if change:
        change(doc)
    return write(tmp_path / name, doc)


# --- 1. <domains> of the pasted block -----------------------------------------------------------

def test_the_pasted_block_keeps_the_reports_domains(capsys, tmp_path):
    path = report(tmp_path)
    code, xml, err = run(capsys, "advise", "--from-report", path, "--host-cpus", 1, "--xml")
    assert code == 0, err
    # Two outputs of 1 MB with 1/32 for the bookkeeping and 1 MiB to spare: 2.97 MiB, so 3.
    assert xml == ('<architecture>\n  <domains count="2"/>\n  <dedicated cores="0" nodes="0"/>\n'
                   '  <buffer name="ecluse-buffer" size="3MiB"/>\n</architecture>\n')
    code, out, _ = run(capsys, "advise", "--from-report", path, "--host-cpus", 1, "--json")
    doc = json.loads(out)
    assert doc["recommendation"]["domains"] == 2
    assert '<domains count="2"/>' in doc["recommendation"]["architecture"]
    assert {"name": "domains", "value": "2 blocks per client (architecture.domains)",
            "source": "measured"} in doc["inputs"]


def test_without_a_report_domains_is_an_option_labelled_default(capsys):
    code, xml, _ = run(capsys, "advise", *PLATFORM, "--domains", 3, "--xml")
    assert code == 0 and '  <domains count="3"/>\n' in xml
    code, out, _ = run(capsys, "advise", *PLATFORM)
    assert code == 0
    assert ("input: domains: 1 block per client (give --domains N when the simulation's "
            "<domains count> is N) [default]") in out.splitlines()


# --- 2. the report's own output count -----------------------------------------------------------

def test_one_output_at_iteration_0_is_one_output(capsys, tmp_path):
    path = report(tmp_path)
    code, out, err = run(capsys, "advise", "--from-report", path, "--host-cpus", 1, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["workload"] == {"iterations": 200, "output_every": 1, "outputs": 1,
                               "bytes_per_output": 1e6}
    (tp,) = doc["predictions"]
    # 2 s of compute at 250 W, one output of 0.5 s at 175 W (half a core busy writing); the
    # old reading, 200 outputs "every 1", predicted 102 s.
    assert tp["io_s"] == pytest.approx(0.5) and tp["time_s"] == pytest.approx(2.5)
    assert tp["energy_j"] == pytest.approx(2.0 * 250 + 0.5 * 175)
    code, out, _ = run(capsys, "advise", "--from-report", path, "--host-cpus", 1)
    assert "workload: 200 iterations, 1 output (every 1), 1.000 MB per output" in out
    assert "input: output: 1 output in 200 iterations (every 1), 1.000 MB [measured]" in out


def test_validate_reads_the_reports_output_count_too(tmp_path):
    measured = val.read_report(str(report(tmp_path)))
    assert measured.workload.outputs == 1 and measured.workload.tail_iterations == 199
    # --output-every given: the outputs are the iterations over it, as before.
    assert val.read_report(str(report(tmp_path)), output_every=20).workload.outputs == 10


# --- 3. options --from-report decides -----------------------------------------------------------

def test_from_report_refuses_the_options_it_takes_from_the_report(capsys, tmp_path):
    code, out, err = run(capsys, "advise", "--from-report", report(tmp_path), "--nodes", 2,
                         "--iterations", 10, "--bandwidth", "1GB/s")
    assert code == 2 and out == ""
    assert err == ("ecluse advise: --from-report takes the platform, the workload, the "
                   "application and the domains from the run's report: --nodes, --iterations, "
                   "--bandwidth cannot be given with it; leave them out, or advise without "
                   "--from-report (--profile or --t-base, --nodes, --cores-per-node, "
                   "--iterations, ...)\n")
    code, _, err = run(capsys, "predict", "--from-report", report(tmp_path), "--profile", "p.json")
    assert code == 2 and "--profile cannot be given with it; leave it out" in err


# --- 4. usage errors, not tracebacks ------------------------------------------------------------

@pytest.mark.parametrize("extra, message", [
    (["--nodes", 0], "argument --nodes: '0' is not a whole number >= 1"),
    (["--cores-per-node", 0], "argument --cores-per-node: '0' is not a whole number >= 1"),
    (["--bandwidth", 0], "argument --bandwidth: '0' is not a size above 0 (e.g. 64MiB, "
                         "500MB/s)"),
    (["--dvfs", 0, "--dvfs-io-exponent", 1],
     "argument --dvfs: '0' is not a fraction within (0, 1], e.g. 0.8"),
    (["--bytes-per-output", "."], "argument --bytes-per-output: '.' is not a size"),
    # --- 5. nonsense values
    (["--iterations", 0], "argument --iterations: '0' is not a whole number >= 1"),
    (["--t-base", -1], "argument --t-base: '-1' is not a finite number > 0"),
    (["--t-base", "nan"], "argument --t-base: 'nan' is not a finite number > 0"),
    (["--tp-io-busy", 1.5], "argument --tp-io-busy: '1.5' is not a share within 0..1, e.g. 0.5"),
    (["--dvfs", 1.5], "argument --dvfs: '1.5' is not a fraction within (0, 1], e.g. 0.8"),
    (["--host-cpus", 0], "argument --host-cpus: '0' is not a whole number >= 1"),
])
def test_bad_numbers_are_usage_errors(capsys, extra, message):
    err = usage_error(capsys, "advise", *PLATFORM, *extra)
    assert f"ecluse advise: error: {message}" in err


def test_idle_above_max_watts_is_refused_as_in_a_calibration_file(capsys):
    code, out, err = run(capsys, "advise", *PLATFORM, "--idle-watts", 300, "--max-watts", 200,
                         "--json")
    assert code == 2 and out == ""
    assert err == ("ecluse advise: --idle-watts (300) is above --max-watts (200): give the "
                   "node's power at rest, then fully busy (P_idle <= P_max)\n")


def test_ranks_per_node_variable_is_read_when_used(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("ECLUSE_RANKS_PER_NODE", "two")
    code, _, _ = run(capsys, "advise", *PLATFORM)       # the parser no longer reads it
    assert code == 0
    code, _, err = run(capsys, "profile", "-o", tmp_path / "p.json", "--", "true")
    assert code == 2
    assert err == ("ecluse profile: ECLUSE_RANKS_PER_NODE='two' is not a whole number >= 1: set "
                   "it to the ranks of a virtual node (e.g. 2), unset it, or give "
                   "--ranks-per-node\n")
    from ecluse.cli import ranks_per_node
    monkeypatch.setenv("ECLUSE_RANKS_PER_NODE", "")
    assert ranks_per_node(None) == 2 and ranks_per_node(3) == 3


def test_a_profile_run_past_its_timeout_is_stopped_and_said(capsys, tmp_path, monkeypatch):
    launcher = tmp_path / "slow-mpiexec"
    launcher.write_text("#!/bin/sh\necho started >&2\nexec sleep 30\n")
    launcher.chmod(0o755)
    monkeypatch.setenv("ECLUSE_MPIEXEC", str(launcher))
    code, _, err = run(capsys, "profile", "--timeout", 0.5, "--cores", 1, "--nodes", 1,
                       "-o", tmp_path / "p.json", "--", "true")
    assert code == 2
    assert (f"ecluse profile: {launcher} --oversubscribe -n 1 true did not end within 0.5 s "
            "(--timeout) and was stopped: give a longer --timeout, or fewer --iterations; its "
            "last output:\n  started\n") in err


# --- 6. damaged profiles and reports ------------------------------------------------------------

def _without(section, key):
    def change(doc):
        del doc[section][key]
    return change


@pytest.mark.parametrize("change, message", [
    (lambda d: d.pop("fit"), "field 'fit' is missing"),
    (_without("power", "idle_watts"), "field 'power.idle_watts' is missing"),
    (lambda d: d["bandwidth"].update(bytes_per_s=[0, 2e9]),
     "field 'bandwidth.bytes_per_s.0' is 0, expected a finite number > 0"),
    (lambda d: d["power"].update(idle_watts=300.0),
     "power.idle_watts (300) is above power.max_watts (250)"),
])
def test_a_damaged_profile_is_refused_naming_the_field(capsys, tmp_path, change, message):
    doc = copy.deepcopy(PROFILE)
    change(doc)
    path = write(tmp_path / "p.json", doc)
    code, _, err = run(capsys, "advise", "--profile", path, "--nodes", 2, "--cores-per-node", 2,
                       "--iterations", 10, "--output-every", 2, "--bytes-per-output", "1MB")
    assert code == 2
    assert err == f"ecluse advise: {path}: {message}; make the profile again with ecluse profile\n"


def test_a_profile_that_is_a_json_list_is_refused(capsys, tmp_path):
    path = write(tmp_path / "p.json", [])
    code, _, err = run(capsys, "validate", "--profile", path, report(tmp_path))
    assert code == 2
    assert err == (f"ecluse validate: {path}: holds a JSON list, not a profile (a JSON object of "
                   "schema 'ecluse-profile/1'): make the profile again with ecluse profile\n")


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(nodes=0),
     f"field 'nodes' is 0; expected a whole number >= 1 {DAMAGED}"),
    (lambda d: (d.update(approach="dn"), d["architecture"].update(dedicated_nodes=0)),
     f"field 'architecture.dedicated_nodes' is 0; expected a whole number >= 1 {DAMAGED}"),
    (lambda d: (d.update(approach="dc"), d["architecture"].update(dedicated_cores=0)),
     f"field 'architecture.dedicated_cores' is 0; expected a whole number >= 1 {DAMAGED}"),
    (lambda d: d["iterations"]["client_write_s"].update(slowest_rank_mean=float("inf")),
     "field 'iterations.client_write_s.slowest_rank_mean' is inf; expected a finite number of "
     f"seconds >= 0 {DAMAGED}"),
    (lambda d: d["roles"]["simulation"]["phases"]["compute"].update(wall_s=float("nan")),
     "field 'roles.simulation.phases.compute.wall_s' is nan; expected a finite number of "
     f"seconds >= 0 {DAMAGED}"),
])
def test_a_damaged_report_is_refused_naming_the_field(capsys, tmp_path, change, message):
    path = report(tmp_path, change)
    code, out, err = run(capsys, "advise", "--from-report", path, "--json")
    assert code == 2 and out == ""
    assert err == f"ecluse advise: {path}: {message}\n"


def test_validate_refuses_a_report_with_no_nodes(capsys, tmp_path):
    path = report(tmp_path, lambda d: d.update(nodes=0))
    code, _, err = run(capsys, "validate", "--profile", write(tmp_path / "p.json", PROFILE), path)
    assert code == 2
    assert err == (f"ecluse validate: {path}: field 'nodes' is 0; expected a whole number >= 1 "
                   f"{DAMAGED}\n")


# --- 7, 8. the least-cost line ------------------------------------------------------------------

def test_a_report_the_model_fails_on_says_why_and_the_next_is_predicted(capsys, tmp_path,
                                                                          monkeypatch):
    bad = report(tmp_path, lambda d: d["architecture"].update(ranks_per_node=2), "bad.json")
    good = report(tmp_path, lambda d: d["architecture"].update(ranks_per_node=2), "good.json")
    predict_all, calls = least_cost.adv.predict_all, []

    def failing_first(*args, **kw):   # the model fails on the first report only
        calls.append(args)
        if len(calls) == 1:
            raise ZeroDivisionError("float division by zero")
        return predict_all(*args, **kw)
    monkeypatch.setattr(least_cost.adv, "predict_all", failing_first)
    script = ("import os, sys; open(os.environ['ECLUSE_RUN_REPORTS'], 'a').write("
              "sys.argv[1] + '\\n' + sys.argv[2] + '\\n'); sys.exit(3)")
    code = least_cost.run([sys.executable, "-c", script, str(bad), str(good)], Power(),
                          ModelOptions(), host_cpus=2)
    assert code == 3
    first, second = capsys.readouterr().out.splitlines()
    assert first == (f"  least cost: not predicted: {bad}: ZeroDivisionError: float division "
                     "by zero")
    # Every energy with its source, in one unit.
    assert re.fullmatch(
        r"  least cost: (\S+, \d+\.\d% less energy than this run's TP \(model: [\d.]+ J vs "
        r"[\d.]+ J|this run's TP \(model: [\d.]+ J), power default-uncalibrated \[default\]"
        r".*; measured 600\.000 J \[model/modelled/default-uncalibrated\]\)", second), second


def test_a_report_that_cannot_be_modelled_keeps_the_line_short(tmp_path):
    path = report(tmp_path, lambda d: (d.update(approach="dc"),
                                        d["architecture"].update(dedicated_cores=0)))
    assert least_cost.line(str(path), Power(), ModelOptions()) == (
        f"  least cost: not predicted: {path}: field 'architecture.dedicated_cores' is 0; "
        f"expected a whole number >= 1 {DAMAGED}")


# --- small: wording and units -------------------------------------------------------------------

def test_a_longer_run_is_never_0_percent_longer():
    tp = Prediction("TP", Approach("tp"), 100.0, 90.0, 10.0, 0.0, 250.0, 25000.0)
    dc = Prediction("DC(1)", Approach("dc", dedicated_cores=1), 100.2, 100.2, 10.0, 0.0,
                    200.0, 20040.0)
    assert explain(dc, [tp, dc]) == ("DC(1) uses 19.8% less energy than TP: it draws less power "
                                     "(200 W vs 250 W per node) although it runs 0.2% longer")


def test_the_least_energy_line_uses_the_tables_unit(capsys):
    code, out, _ = run(capsys, "advise", "--t-base", 0.1, "--nodes", 2, "--cores-per-node", 4,
                       "--iterations", 100, "--output-every", 10, "--bytes-per-output", "1GB",
                       "--bandwidth", "300MB/s")
    assert code == 0
    lines = out.splitlines()
    assert next(line for line in lines if line.startswith("approach")).endswith("energy kJ  mark")
    assert "least energy: DC(1) (8.325 kJ)" in lines


# --- 9. Session.alloc's derived views -----------------------------------------------------------

NATIVE = list((BUILD / "python" / "ecluse").glob("_native*.so"))
CONFIG = """<simulation name="views" xmlns="urn:ecluse:config:1">
  <architecture><domains count="1"/><dedicated cores="0" nodes="0"/><buffer size="4MiB"/>
  </architecture>
  <data><layout name="grid" type="double" dimensions="6,4"/>
    <variable name="field" layout="grid"/></data>
  <storage><store name="files" type="HDF5"><option key="FilesPath">out</option></store></storage>
  <log LogLevel="warning"/>
</simulation>
"""
DERIVED_VIEW = """
import json, warnings
import ecluse
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with ecluse.Session("views.xml") as s:
        if s.is_client:
            a = s.alloc("field")
            a[...] = 1.0
            s.commit("field")              # one name only: nothing to say
            s.end_iteration()
            a = s.alloc("field")
            rest = a[1:]
            rest[...] = 2.0
            a[0] = 2.0
            s.commit("field")              # line 15 of the script
            rest[...] = 7.0                # still writable: reaches the stored data
            s.end_iteration()
print("RESULT " + json.dumps({
    "warnings": [[w.category.__name__, str(w.message), w.lineno] for w in caught],
    "writeable": [a.flags.writeable, rest.flags.writeable]}), flush=True)
"""


@pytest.mark.skipif(not NATIVE, reason=f"the native module was not built in {BUILD}")
def test_a_view_derived_from_an_alloc_view_is_warned_about_at_commit(tmp_path):
    import h5py
    import numpy as np
    (tmp_path / "views.xml").write_text(CONFIG)
    (tmp_path / "script.py").write_text(textwrap.dedent(DERIVED_VIEW).lstrip())
    done = subprocess.run([mpiexec(), "-n", "1", sys.executable, "script.py"], cwd=tmp_path,
                          env=child_env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    result = json.loads(line[len("RESULT "):])
    assert result["warnings"] == [[
        "ViewWarning",
        "alloc view of variable 'field' block 0: 2 references to it are left at commit; it is "
        "read-only now, but a view derived from it (a[1:], a.reshape(...)) is not and still "
        "writes into Ecluse's buffer, into the data being stored or room reused by a later "
        "block. Drop derived views (del) before commit, or write through the alloc view only.",
        15]]
    assert result["writeable"] == [False, True]
    # What the docstring and docs/python.md say: the derived view's late write is stored.
    (path,) = (tmp_path / "out").glob("views_It1_Pr*.h5")
    with h5py.File(path, "r") as f:
        assert np.array_equal(f["field/P0"][1:], np.full((5, 4), 7.0))


def test_advice_from_a_report_of_small_outputs_says_they_are_mostly_fixed_cost():
    from ecluse import from_report
    from ecluse.model import Workload
    (note,) = from_report._notes(Workload(10, 1, 27360.0), 27360.0)
    assert note.startswith("this run wrote 27360 bytes per output: at that size a write's time "
                           "is mostly its fixed cost per file")
    assert from_report._notes(Workload(10, 1, 2e6), 2e6) == ()
    assert from_report._notes(Workload(10, 0, 0.0), None) == ()


def test_a_partial_report_is_refused_with_its_failure(tmp_path):
    import json as _json
    from ecluse import from_report
    from ecluse.power import Power
    path = tmp_path / "partial.json"
    path.write_text(_json.dumps({"schema": "ecluse-report/2", "complete": False,
                                 "failures": [{"cause": "timeout (ECLUSE_TIMEOUT=3 s) waiting"}]}))
    with pytest.raises(ValueError) as raised:
        from_report.read(str(path), Power(100.0, 250.0, "p", "given"))
    assert str(raised.value) == (
        f"{path}: the run did not complete ('complete': false; first failure: timeout "
        "(ECLUSE_TIMEOUT=3 s) waiting): the model needs the report of a run that ended "
        "normally; run it again")


def test_advice_from_a_report_of_a_run_beside_other_processes_says_so():
    from ecluse import from_report
    from ecluse.report import Energy

    class Loaded:
        energy = Energy(joules=10.0, hosts_with_other_load=1, other_cpu_s=4.5)

    class Quiet:
        energy = Energy(joules=10.0, hosts_with_other_load=0, other_cpu_s=0.2)

    assert from_report._other_load_notes(Loaded) == (
        "this run shared its host with other processes (4.5 CPU-s beyond its own ranks): its "
        "measured times, which the advice starts from, may be slowed by them; advise from a run "
        "on a quiet machine.",)
    assert from_report._other_load_notes(Quiet) == ()
