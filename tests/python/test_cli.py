"""`ecluse` end to end on fixtures: predict, advise (--xml), validate (with plots) on run reports
written to the schema of docs/report.md, and profile (on the proxy when it is built)."""
import copy
import json
import os
import pathlib
import re
import shutil
import sys

import pytest
from pytest import approx

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
from ecluse import profile as prof  # noqa: E402
from ecluse.cli import main  # noqa: E402

PROXY = pathlib.Path(os.environ.get("ECLUSE_BUILD", ROOT / "build")) / "apps/proxy/ecluse_proxy"


def profile_doc(t_base, writers, bandwidth, cpus):
    """A profile (schema ecluse-profile/1) with perfect scalability."""
    perfect = {"serial": 0.0, "parallel": t_base, "log": 0.0}
    return {"schema": "ecluse-profile/1", "created": "2026-01-01T00:00:00+00:00", "host": "vm",
            "cpus": cpus, "max_ranks": 4, "oversubscribed": cpus < 4, "virtual_nodes": True,
            "command": ["app"], "iterations": 10, "global_grid": "128x128x40",
            "ranks_per_node": 2, "runs": [],
            "fit": {"t_base_s": t_base, "s_cores": perfect, "s_nodes": perfect,
                    "measured_s_cores": {}, "measured_s_nodes": {}},
            "bandwidth": {"writers": writers, "bytes_per_s": bandwidth},
            "power": {"idle_watts": 100.0, "max_watts": 250.0, "id": "default-uncalibrated",
                      "source": "default"}}


def write(path, doc):
    path.write_text(json.dumps(doc))
    return str(path)


# Dedicated resources at the paper's power (DN at 1/2, DC at P_max): the hand computations below.
PAPER_IDLE = ["--idle-fraction", "paper"]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


# --- predict / advise -------------------------------------------------------------------------

# 16 nodes of 4 cores, T_base 60 s, 1e8 B/s for 4 writers and 2e8 B/s from 8 writers on: the
# cases of test_model_advise.py, computed there by hand.
NANCY = ["--nodes", 16, "--cores-per-node", 4, "--iterations", 100, "--bytes-per-output", "300MB",
         "--max-dedicated-cores", 1]


@pytest.fixture
def nancy(tmp_path):
    return write(tmp_path / "nancy.json", profile_doc(60.0, [4, 8], [1e8, 2e8], 64))


def test_advise_high_frequency(capsys, nancy):
    code, out, _ = run(capsys, "advise", "--profile", nancy, *PAPER_IDLE, *NANCY,
                       "--output-every", 1)
    assert code == 0
    lines = out.splitlines()
    assert "platform: 16 nodes x 4 cores" in lines
    assert "workload: 100 iterations, output every 1, 300.000 MB per output" in lines
    assert ("energy: modelled with node power default-uncalibrated (100 W idle, 250 W max) "
            "[default]") in lines
    # DN(3:1): 12 nodes compute 6000 / 48 = 125 s, 99 * (1.5 - 1.25) + 1.5 = 26.25 s blocked,
    # (125 + 26.25) * (12 * 250 + 4 * 175) = 559625 J. DN(7:1): 151.071 s, the shortest.
    assert "least energy: DN(3:1) (559.625 kJ)" in lines
    assert "fastest: DN(7:1) (151.071 s)" in lines
    assert "recommendation (energy): DN(3:1)  <dedicated cores=\"0\" nodes=\"4\"/>" in lines
    dn15 = next(line for line in lines if line.startswith("DN(15:1)"))
    assert dn15.split()[4] == "201.000"   # blocked s: 99 * (3 - 1) + 3
    assert any(line.startswith("why: DN(3:1) uses ") for line in lines)


def test_advise_xml_low_frequency(capsys, nancy):
    code, out, _ = run(capsys, "advise", "--profile", nancy, *NANCY, "--output-every", 10, "--xml")
    assert code == 0
    # Two outputs of 300 MB with 1/32 for the allocator's bookkeeping and 1 MiB to spare:
    # (2 * 300e6 * 33 / 32 + 2**20) / 2**20 = 591.08, so 592 MiB.
    assert out == ('<architecture>\n  <domains count="1"/>\n  <dedicated cores="0" nodes="1"/>\n'
                   '  <buffer name="ecluse-buffer" size="592MiB"/>\n</architecture>\n')


def test_advise_json_says_what_the_text_says(capsys, nancy):
    args = ("advise", "--profile", nancy, *PAPER_IDLE, *NANCY, "--output-every", 1)
    code, text, _ = run(capsys, *args)
    assert code == 0
    code, out, _ = run(capsys, *args, "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["schema"] == "ecluse-advice/1" and doc["goal"] == "energy"
    assert doc["platform"] == {"nodes": 16, "cores_per_node": 4, "host_cpus": None}
    assert doc["workload"] == {"iterations": 100, "output_every": 1, "outputs": 100,
                               "bytes_per_output": 3e8}
    assert doc["power"] == {"label": "default-uncalibrated (100 W idle, 250 W max)",
                            "source": "default"}
    # The cases of test_advise_high_frequency: DN(3:1) least energy, DN(7:1) fastest.
    assert (doc["least_energy"], doc["fastest"]) == ("DN(3:1)", "DN(7:1)")
    by = {p["approach"]: p for p in doc["predictions"]}
    assert by["DN(3:1)"]["energy_j"] == approx(559625)
    assert by["DN(15:1)"]["blocked_s"] == approx(201.0)
    assert by["DN(3:1)"]["dedicated_nodes"] == 4 and by["DN(3:1)"]["kind"] == "dn"
    assert f"why: {doc['why']}" in text.splitlines()
    saving = doc["saving"]
    assert saving["over"] in by and saving["band"] is None and saving["beyond_uncertainty"] is None
    assert f"{saving['relative']:.1%} less energy than {saving['over']}" in text
    assert doc["recommendation"]["approach"] == "DN(3:1)"
    assert doc["recommendation"]["dedicated"] == '<dedicated cores="0" nodes="4"/>'
    assert doc["recommendation"]["architecture"].startswith("<architecture>")
    assert {"name", "value", "source"} <= set(doc["inputs"][0])
    # --xml and --json are one or the other.
    with pytest.raises(SystemExit) as exit_:
        run(capsys, *args, "--json", "--xml")
    assert exit_.value.code == 2
    assert "argument --xml: not allowed with argument --json" in capsys.readouterr().err


def test_advise_goal_time(capsys, nancy):
    code, out, _ = run(capsys, "advise", "--profile", nancy, *NANCY, "--output-every", 1,
                       "--goal", "time", "--xml")
    # A dedicated node's share, 150 MB: (2 * 150e6 * 33 / 32 + 2**20) / 2**20 = 296.04.
    assert '  <dedicated cores="0" nodes="2"/>\n  <buffer name="ecluse-buffer" size="297MiB"/>' in out


def test_predict_paper_model_without_profile(capsys):
    code, out, _ = run(capsys, "predict", "--t-base", 18.1, "--nodes", 16, "--cores-per-node", 24,
                       "--iterations", 2520, "--no-output", "--model", "paper", "--idle-watts", 110,
                       "--max-watts", 390.5, "--power-id", "ex-nodes-2024")
    assert code == 0
    lines = out.splitlines()
    assert "model: paper" in lines
    assert ("energy: modelled with node power ex-nodes-2024 (110 W idle, 390.5 W max) "
            "[options]") in lines
    assert not any(line.startswith("TP ") for line in lines)   # the paper leaves TP out
    # DN(15:1): 45612 / 360 = 126.7 s; (15 * 390.5 + 250.25) / 16 = 381.734 W
    dn = next(line for line in lines if line.startswith("DN(15:1)")).split()
    assert dn[1:3] == ["126.700", "126.700"] and dn[5] == "381.7"


def test_predict_calibration_file_and_errors(capsys, tmp_path):
    cal = tmp_path / "cal.ini"
    cal.write_text("[host *]\nid = lab\nidle_watts = 50\nmax_watts = 150\n")
    code, out, _ = run(capsys, "predict", "--t-base", 1, "--nodes", 2, "--cores-per-node", 2,
                       "--iterations", 10, "--no-output", "--calibration", cal)
    assert code == 0 and "(50 W idle, 150 W max) [calibration]" in out
    cal.write_text("[host *]\nidle = 3\n")
    code, _, err = run(capsys, "predict", "--t-base", 1, "--nodes", 2, "--cores-per-node", 2,
                       "--iterations", 10, "--no-output", "--calibration", cal)
    assert code == 2 and f"{cal}:2: unknown key 'idle'" in err


# --- validate ---------------------------------------------------------------------------------

REPORT = {
    "schema": "ecluse-report/1", "simulation": "proxy", "config": "proxy-tp.xml",
    "approach": "tp",
    "architecture": {"dedicated_cores": 0, "dedicated_nodes": 0, "ranks_per_node": 2,
                     "buffer_bytes": 67108864, "domains": 1},
    "ranks": 2, "nodes": 1, "hosts": 1,
    "roles": {"simulation": {"ranks": 2, "wall_s": 0.8, "cpu_s": 0.7, "cpu_usage_percent": 87.5,
                             "bytes": 32000000,
                             "phases": {"compute": {"wall_s": 0.5, "cpu_s": 0.5},
                                        "write": {"wall_s": 0.3, "cpu_s": 0.2},
                                        "wait": {"wall_s": 0.0, "cpu_s": 0.0}}}},
    "completion_time_s": 0.4,
    "iterations": [{"iteration": i, "bytes": 8000000,
                    "client_write_s": {"mean": 0.001, "max": 0.002},
                    "server_store_s": {"mean": 0.004, "max": 0.004}} for i in (4, 9, 14, 19)],
    "energy": {"source": "model", "quality": "modelled", "calibration": "default-uncalibrated",
               "joules": 60.0, "average_power_w": 150.0,
               "hosts": [{"host": "vm", "joules": 60.0, "source": "model", "quality": "modelled"}],
               "by_role": {"simulation": {"joules": 60.0, "label": "apportioned by CPU time",
                                          "phases": {"compute": 40.0, "write": 20.0, "wait": 0.0}}}},
    "io": {"bytes": 32000000, "rate_mb_s": 80.0, "rate_mb_s_per_w": 0.53},
    "frequency": {"policy": None, "controller": "null", "actions": []},
    "statistics": {},
}


def report(approach, time_s, joules, idle=None):
    r = copy.deepcopy(REPORT)
    r["approach"] = approach
    r["completion_time_s"] = time_s
    r["energy"]["joules"] = joules
    if approach != "tp":
        r.update(ranks=4, nodes=2)
        role = "dedicated-core" if approach == "dc" else "dedicated-node"
        r["architecture"]["dedicated_cores" if approach == "dc" else "dedicated_nodes"] = 1
        r["roles"][role] = {"ranks": 2, "wall_s": 1.0, "cpu_s": 0.1, "cpu_usage_percent": 10.0,
                            "bytes": 32000000,
                            "phases": {"gather": {"wall_s": 0.05, "cpu_s": 0.05},
                                       "store": {"wall_s": 1 - idle - 0.05, "cpu_s": 0.05},
                                       "idle": {"wall_s": idle, "cpu_s": 0.0}}}
    return r


@pytest.fixture
def validation(tmp_path):
    # One host of 4 CPUs, T_base 0.02 s, perfect scaling, 4e8 B/s for 1 writer, 2e8 for 2;
    # 20 iterations, 8e6 B every 5. Predictions:
    # TP  (2 ranks): 0.02 * 20 / 2 = 0.2 s + 4 * 8e6 / 2e8 = 0.16 s I/O = 0.36 s;
    #     0.2 s * 175 W (2 of 4 CPUs) + 0.16 s * 137.5 W (half busy) = 57 J
    # DC  (2 nodes x (1 client + 1 server)): 0.2 s + drain 0.04 s = 0.24 s at 250 W
    #     (servers busy-polling, eq. 4): 60 J
    # DN  (1 node computes, 1 writes): 0.24 s, load (2 + 2 * 0.5) / 4: 212.5 W, 51 J
    profile = write(tmp_path / "p.json", profile_doc(0.02, [1, 2], [4e8, 2e8], 4))
    reports = [write(tmp_path / "tp.json", report("tp", 0.40, 60.0)),        # -10.0%, -5.0%
               write(tmp_path / "dc.json", report("dc", 0.25, 62.5, 0.5)),   # -4.0%, -4.0%
               write(tmp_path / "dn.json", report("dn", 0.20, 50.0, 0.9))]   # +20.0%, +2.0%
    return profile, reports


def test_validate_refuses_a_profile_without_bandwidth_for_runs_with_output(capsys, validation,
                                                                         tmp_path):
    # As predict and advise, validate never takes I/O as zero: the runs wrote output, the
    # profile measured no bandwidth.
    _, reports = validation
    doc = profile_doc(0.02, [1, 2], [4e8, 2e8], 4)
    del doc["bandwidth"]
    profile = write(tmp_path / "nobw.json", doc)
    code, out, err = run(capsys, "validate", *reports, "--profile", profile)
    assert code == 2 and out == ""
    assert err == (f"ecluse validate: {profile} has no write bandwidth, and {reports[0]} wrote "
                   "output (and 2 more reports): profile with --bandwidth (ecluse profile "
                   "--bandwidth -- ...) to measure it\n")


def test_validate_notes_outputs_too_small_or_far_from_the_profiled_size(capsys, validation,
                                                                        tmp_path):
    _, reports = validation  # 8e6 bytes per output
    for per_output, note in [
            (4e6, None),
            (1.5e6, "note: 3 of the runs write 8000000 to 8000000 bytes per output, the "
                    "profile's output runs 1500000: their I/O time is extrapolated as bytes / "
                    "bandwidth, which a file's fixed cost makes wrong far from the profiled "
                    "size; profile at the runs' output size"),
            (708, "note: the profile's output runs wrote 708 bytes per output: at that size a "
                  "write's time is mostly its fixed cost per file, and the model takes I/O time "
                  "as bytes / bandwidth, so it will predict runs that write more per output too "
                  "slow. Profile with the output size of the runs to predict (their grid, their "
                  "variables).")]:
        doc = profile_doc(0.02, [1, 2], [4e8, 2e8], 4)
        doc["bandwidth"]["points"] = [{"writers": 1, "bytes_per_output": per_output}]
        profile = write(tmp_path / "p.json", doc)
        code, out, _ = run(capsys, "validate", *reports, "--profile", profile)
        assert code == 0
        notes = [line for line in out.splitlines() if line.startswith("note: ")]
        assert notes == ([note] if note else []), per_output


def test_validate_notes_runs_that_shared_their_host(capsys, validation, tmp_path):
    """Every energy source counts the whole host: a run beside other processes is said."""
    profile, reports = validation
    doc = json.loads(pathlib.Path(reports[1]).read_text())
    doc["energy"].update(hosts_with_other_load=1, other_cpu_s=3.25)
    loaded = write(tmp_path / "loaded.json", doc)
    code, out, _ = run(capsys, "validate", reports[0], loaded, "--profile", profile)
    assert code == 0
    assert [line for line in out.splitlines() if line.startswith("note: ")] == [
        f"note: 1 of the runs shared their host with other processes (up to 3.2 CPU-s beyond "
        f"their own ranks, e.g. {loaded}): their measured energy counts that load too and their "
        "times may be slowed by it; repeat them on a quiet machine"]
    code, out, _ = run(capsys, "validate", *reports, "--profile", profile)
    assert "shared their host" not in out


def table_row(out, label):
    return next(line for line in out.splitlines() if line.startswith(label)).split()


def test_validate_errors_and_choice(capsys, validation, tmp_path):
    profile, reports = validation
    code, out, _ = run(capsys, "validate", *reports, "--profile", profile, *PAPER_IDLE)
    assert code == 0
    # Rows are keyed by the report's full path and its configuration.
    assert table_row(out, "TP") == ["TP", reports[0], "[proxy-tp.xml]", "0.400", "0.360", "-10.0%",
                                    "60.000", "57.000", "-5.0%"]
    assert table_row(out, "DC(1)")[2:] == ["[proxy-tp.xml]", "0.250", "0.240", "-4.0%", "62.500",
                                           "60.000", "-4.0%"]
    assert table_row(out, "DN(1:1)")[3:] == ["0.200", "0.240", "+20.0%", "50.000", "51.000",
                                             "+2.0%"]
    lines = out.splitlines()
    assert "measured energy: model/modelled/default-uncalibrated" in lines
    assert "time error: worst 20.0%, mean 11.3%; energy error: worst 5.0%, mean 3.7%" in lines
    assert "least energy: predicted DN(1:1), measured DN(1:1): right" in lines
    assert "fastest: predicted DN(1:1), measured DN(1:1): right" in lines


def test_validate_measured_idle_fraction(capsys, validation):
    profile, reports = validation
    code, out, _ = run(capsys, "validate", reports[2], "--profile", profile, *PAPER_IDLE,
                       "--idle-fraction", "measured")
    # DN idle 0.9, clients asleep 0.04 s of 0.24 s (the last drain): load (2 * 0.2 / 0.24 +
    # 2 * 0.1) / 4 = 0.4667, 100 + 150 * 0.4667 = 170 W, * 0.24 s = 40.8 J
    assert table_row(out, "DN(1:1)")[7:] == ["40.800", "-18.4%"]


def test_validate_wrong_pick_and_plots(capsys, validation, tmp_path):
    profile, reports = validation
    slow_dn = write(tmp_path / "dn-slow.json", report("dn", 0.5, 70.0, 0.9))
    code, out, _ = run(capsys, "validate", reports[0], reports[1], slow_dn, "--profile", profile,
                       *PAPER_IDLE, "--plots", tmp_path / "plots")
    assert "least energy: predicted DN(1:1), measured TP: WRONG" in out.splitlines()
    for name in ("energy_vs_time.png", "predicted_vs_measured.png"):
        png = tmp_path / "plots" / name
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"wrote {png}" in out


def test_validate_rejects_other_documents(capsys, tmp_path, validation):
    profile, _ = validation
    bad = write(tmp_path / "bad.json", {"schema": "something-else"})
    code, _, err = run(capsys, "validate", bad, "--profile", profile)
    assert code == 2 and "expected 'ecluse-report/2' (or the older 'ecluse-report/1')" in err


# --- profile ----------------------------------------------------------------------------------

def test_profile_without_the_proxy_says_how(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("ECLUSE_BUILD", str(tmp_path))
    code, _, err = run(capsys, "profile", "-o", tmp_path / "p.json")
    assert code == 2 and "ecluse_proxy not found" in err


def _mpiexec():
    return os.environ.get("ECLUSE_MPIEXEC") or shutil.which("mpiexec.openmpi")


@pytest.mark.skipif(not PROXY.exists(), reason=f"{PROXY} is not built (scripts/setup.sh)")
@pytest.mark.skipif(not _mpiexec(), reason="no Open MPI launcher (mpiexec.openmpi)")
def test_profile_on_a_tiny_proxy_run(capsys, tmp_path):
    out_file = tmp_path / "p.json"
    code, out, err = run(capsys, "profile", "-o", out_file, "--cores", "1,2", "--nodes", "1,2",
                         "--ranks-per-node", 1, "--iterations", 3, "--global", "16x16x4",
                         "--bandwidth", "--writers", "1", "--output-every", 3)
    assert code == 0, err
    assert "[1/4] cores: 1 cores x 1 nodes = 1 ranks" in err
    assert "[bandwidth 1/1] 1 writers:" in err
    doc = json.loads(out_file.read_text())
    assert doc["schema"] == "ecluse-profile/1" and len(doc["runs"]) == 4
    assert doc["fit"]["t_base_s"] > 0 and doc["bandwidth"]["writers"] == [1]
    assert doc["oversubscribed"] == (2 > (os.cpu_count() or 1))
    assert f"wrote {out_file}" in out
    # The approach runs: the proxy's configuration rewritten for DC(1) and DN(1:1), one client,
    # and TP with one client per CPU, one interval (3 iterations, every 3), their points from
    # the runs' reports.
    cpus = doc["cpus"]
    runs = 4 if cpus >= 2 else 3
    assert f"[approach 3/{runs}] DN(1:1) every 3, repeat 1:" in err
    many = {f"tp@{cpus}": cpus} if cpus >= 2 else {}
    assert sorted(doc["approaches"]) == sorted(["dc", "dn", "tp", *many])
    if many:
        assert f"[approach 4/4] TP ({cpus} clients) every 3, repeat 1:" in err
        assert f"approach TP ({cpus} clients per node): compute +" in out
    bytes_tp = doc["bandwidth"]["points"][0]["bytes_per_output"]
    for key, terms in doc["approaches"].items():
        assert terms["runs"] == 1 and terms["overhead_s"] >= 0
        (p,) = terms["points"]
        assert (p["kind"], p["clients"], p["outputs"]) == (key.split("@")[0], many.get(key, 1), 1)
        if key in many:  # the same global problem, with the ghost cells of more slabs
            assert bytes_tp < p["bytes_per_output"] < 1.2 * bytes_tp
        else:
            assert p["bytes_per_output"] == bytes_tp
    assert "idle_fraction" in doc["approaches"]["dc"] and "approach DN: compute +" in out


@pytest.mark.skipif(not PROXY.exists(), reason=f"{PROXY} is not built (scripts/setup.sh)")
@pytest.mark.skipif(not _mpiexec(), reason="no Open MPI launcher (mpiexec.openmpi)")
def test_profile_of_a_command_that_writes_at_its_own_interval(capsys, tmp_path):
    # Given as `mpiexec -n 4 ./app ...`, the way it is launched without the profile.
    # No {output_every} in the command: the program writes at its own interval (the proxy's
    # default, every 5 of 10 iterations), so each approach runs at that one interval; the
    # configuration is found after --config and rewritten for DC and DN.
    config = PROXY.parent / "proxy-tp.xml"
    out_file = tmp_path / "p.json"
    code, out, err = run(capsys, "profile", "-o", out_file, "--cores", "1", "--nodes", "1",
                         "--ranks-per-node", 1, "--iterations", 10, "--bandwidth", "--writers",
                         "1", "--output-every", 2, "--", "mpiexec", "-n", "4", "--bind-to",
                         "core", str(PROXY), "--config", str(config), "--iterations",
                         "{iterations}", "--local", "16x16x4")
    assert code == 0, err
    # The command's own launcher is replaced: the profile chooses the rank counts.
    assert "note: the command's launcher 'mpiexec -n 4 --bind-to core' is replaced by " in err
    assert "[1/2] cores: 1 cores x 1 nodes = 1 ranks" in err
    doc = json.loads(out_file.read_text())
    runs = 4 if doc["cpus"] >= 2 else 3
    # The progress says the interval the run wrote at (its report), not --output-every.
    assert f"[approach 3/{runs}] DN(1:1) every 5, repeat 1:" in err
    assert f"[approach {runs + 1}/" not in err
    for terms in doc["approaches"].values():
        assert [(p["output_every"], p["outputs"]) for p in terms["points"]] == [(5, 2)]


@pytest.mark.skipif(not PROXY.exists(), reason=f"{PROXY} is not built (scripts/setup.sh)")
@pytest.mark.skipif(not _mpiexec(), reason="no Open MPI launcher (mpiexec.openmpi)")
def test_profile_of_a_dc_file_given_by_relative_paths(capsys, tmp_path, monkeypatch):
    # The way a user launches the program: `mpiexec -n 4 ./app dc.xml` from its directory. The
    # profile runs each command in a temporary directory, so relative paths are made absolute;
    # its scaling runs need no dedicated cores (on 1 rank a DC file leaves no client), so they
    # run a time-partitioning copy of the file.
    shutil.copy(PROXY, tmp_path / "app")
    config = (PROXY.parent / "proxy-tp.xml").read_text()
    (tmp_path / "dc.xml").write_text(re.sub(r'<dedicated[^>]*/>',
                                            '<dedicated cores="1" nodes="0"/>', config))
    assert '<dedicated cores="1" nodes="0"/>' in (tmp_path / "dc.xml").read_text()
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "profile", "-o", "p.json", "--cores", "1", "--nodes", "1",
                       "--ranks-per-node", 1, "--", "mpiexec", "-n", "4", "./app", "--config",
                       "dc.xml", "--iterations", "{iterations}", "--local", "8x8x2")
    assert code == 0, err
    assert "[1/2] cores: 1 cores x 1 nodes = 1 ranks" in err
    # A program that fails says why, not the launcher's banner.
    code, _, err = run(capsys, "profile", "-o", "p.json", "--cores", "1", "--nodes", "1",
                       "--", "./app", "--config", "missing.xml")
    assert code != 0
    assert "failed (exit status 1), run in a temporary directory:\n  " in err
    assert "missing.xml" in err and "-----" not in err


def test_profile_paths_and_failure_lines(tmp_path, monkeypatch):
    (tmp_path / "sim.xml").write_text("<simulation/>")
    monkeypatch.chdir(tmp_path)
    assert prof.absolute_paths(["./app", "sim.xml", "--config=sim.xml", "-n", "4", "{local}"]) \
        == ["./app", str(tmp_path / "sim.xml"), f"--config={tmp_path / 'sim.xml'}", "-n", "4",
            "{local}"]
    stderr = ("-------\nrank 0: ECLUSE_CONFIG_ERROR: x.xml:3:1: bad\n"
              "rank 1: ECLUSE_CONFIG_ERROR: x.xml:3:1: bad\n-------\nPrimary job terminated\n")
    assert prof.failure_lines(stderr) == "rank 0: ECLUSE_CONFIG_ERROR: x.xml:3:1: bad\n  " \
        "rank 1: ECLUSE_CONFIG_ERROR: x.xml:3:1: bad"
    assert prof.failure_lines("---\nsomething odd\n---\n") == "something odd"
    assert prof.failure_lines("") == "no message"


# --- validate on reports as the runtime writes them ---------------------------------------------

def runtime_report(approach, ranks, nodes, ranks_per_node, time_s, every=5, iterations=22,
                   bytes_per_rank=1000000):
    """A report as ecluse_finalize writes it: every iteration the clients ended is listed, with
    bytes 0 when it had no output (here 22 iterations, so 2 are computed after the last output);
    TP without <virtual-nodes> has ranks_per_node 0."""
    r = report(approach, time_s, 60.0, 0.5 if approach != "tp" else None)
    clients = ranks - (0 if approach == "tp" else ranks // 2 if approach == "dn" else nodes)
    r.update(ranks=ranks, nodes=nodes)
    r["architecture"]["ranks_per_node"] = ranks_per_node
    r["iterations"] = [{"iteration": i,
                        "bytes": clients * bytes_per_rank if (i + 1) % every == 0 else 0,
                        "client_write_s": {"mean": 0.0, "max": 0.0},
                        "server_store_s": {"mean": 0.0, "max": 0.0}} for i in range(iterations)]
    return r


def test_validate_reads_runtime_reports(capsys, tmp_path):
    # T_base 0.02 s, perfect scaling, 1e8 B/s for every writer count; 22 iterations, 1e6 B per
    # client every 5 (4 outputs, 2 iterations after the last).
    # TP 1x1 (ranks_per_node 0 -> 1 core): 0.44 s + 4 * 0.01 s = 0.48 s
    # TP 1x2: 0.22 s + 4 * 2e6 / 1e8 = 0.30 s
    # DC(1) 1 virtual node of 2: 1 client, 0.44 s; io 0.01 s < interval 0.1 s, tail 0.04 s: 0.44 s
    # DN(1:1) 2 virtual nodes of 1: the same, 0.44 s
    profile = write(tmp_path / "p.json", profile_doc(0.02, [1, 2], [1e8, 1e8], 2))
    reports = [write(tmp_path / "tp1.json", runtime_report("tp", 1, 1, 0, 0.50)),
               write(tmp_path / "tp2.json", runtime_report("tp", 2, 1, 0, 0.30)),
               write(tmp_path / "tp2-b.json", runtime_report("tp", 2, 1, 0, 0.34)),
               write(tmp_path / "dc.json", runtime_report("dc", 2, 1, 2, 0.40)),
               write(tmp_path / "dn.json", runtime_report("dn", 2, 2, 1, 0.55))]
    code, out, _ = run(capsys, "validate", *reports, "--profile", profile)
    assert code == 0
    assert table_row(out, "TP 1x1")[4:7] == ["0.500", "0.480", "-4.0%"]
    assert table_row(out, "TP 1x2")[4:7] == ["0.300", "0.300", "+0.0%"]
    assert table_row(out, "DC(1)")[3:6] == ["0.400", "0.440", "+10.0%"]
    assert table_row(out, "DN(1:1)")[3:6] == ["0.550", "0.440", "-20.0%"]
    # The two TP 1x2 runs are repeats of one configuration: mean 0.32 s, sd 0.028 s
    row = next(line for line in out.splitlines()
               if " TP 1x2 " in line and line.startswith(" ")).split()
    assert row[:8] == ["5", "TP", "1x2", "2", "0.320", "0.028", "0.300", "-6.3%"]
    lines = out.splitlines()
    # per configuration: 4.0%, 6.25%, 10.0%, 20.0%
    assert any(line.startswith("per configuration: time error: worst 20.0%, mean 10.1%;")
               for line in lines)
    assert "fastest: predicted TP 1x2, measured TP 1x2: right" in lines


def with_compute(report_doc, compute_per_client):
    """The report with its clients' compute phase (summed over its ranks, as reports hold it)."""
    sim = report_doc["roles"]["simulation"]
    sim["phases"]["compute"]["wall_s"] = compute_per_client * sim["ranks"]
    return report_doc


def test_validate_separates_the_machines_speed_from_the_models_error(capsys, tmp_path):
    # Predictions as above: TP 1x1 0.48 s = compute 0.44 s + 4 outputs x 0.01 s; TP 1x2 0.30 s
    # = 0.22 s + 4 x 0.02 s. TP 1x1 ran 0.55 s and computed 0.50 s (1.14 x the model's): -12.7%
    # in all, -1.8% with its own compute phase ((0.48 - 0.44 + 0.50 - 0.55) / 0.55). TP 1x2
    # ran 0.27 s computing 0.19 s (0.86 x) and 0.33 s computing 0.25 s (1.14 x): 0.0% each.
    profile = write(tmp_path / "p.json", profile_doc(0.02, [1, 2], [1e8, 1e8], 2))
    runs = (("tp1", 1, 0.55, 0.50), ("tp2-a", 2, 0.27, 0.19), ("tp2-b", 2, 0.33, 0.25))
    reports = [write(tmp_path / f"{name}.json",
                     with_compute(runtime_report("tp", ranks, 1, 0, time_s), compute))
               for name, ranks, time_s, compute in runs]
    code, out, _ = run(capsys, "validate", *reports, "--profile", profile)
    assert code == 0
    lines = out.splitlines()
    assert "at the runs' measured compute phase (0.86-1.14 x the model's time: the machine's " \
        "speed on the day): time error: worst 1.8%, mean 0.6%" in lines
    # Per configuration, the repeats combined first: TP 1x2 0.30 s computing 0.22 s (1.00 x).
    assert "per configuration at the runs' measured compute phase (1.00-1.14 x the model's time: " \
        "the machine's speed on the day): time error: worst 1.8%, mean 0.9%" in lines
    # A report without a compute phase (a runtime's that did not account phases): no such line.
    doc = json.loads(pathlib.Path(reports[0]).read_text())
    del doc["roles"]["simulation"]["phases"]["compute"]
    reports[0] = write(tmp_path / "tp1-old.json", doc)
    code, out, _ = run(capsys, "validate", *reports, "--profile", profile)
    assert code == 0 and "TP 1x1" in out
    assert "measured compute phase" not in out


def with_write(report_doc, seconds_per_output):
    """The report with each output's write (TP: its store included) taking that long."""
    for entry in report_doc["iterations"]:
        if entry["bytes"]:
            entry["client_write_s"] = {"mean": seconds_per_output, "max": seconds_per_output}
    return report_doc


def test_validate_separates_the_file_systems_speed_from_the_models_structure(capsys, tmp_path):
    # TP 1x1 predicted 0.48 s: compute 0.44 s + 4 outputs x 0.01 s (1e6 B at 1e8 B/s). The run
    # took 0.53 s, computed 0.44 s and wrote an output in 0.02 s (2.00 x the model's): -9.4%
    # in all and at its compute phase ((0.48 - 0.44 + 0.44 - 0.53) / 0.53); at its store
    # speed too the model says 0.44 + 4 x 0.02 = 0.52 s: -1.9%.
    profile = write(tmp_path / "p.json", profile_doc(0.02, [1, 2], [1e8, 1e8], 2))
    doc = with_write(with_compute(runtime_report("tp", 1, 1, 0, 0.53), 0.44), 0.02)
    code, out, _ = run(capsys, "validate", write(tmp_path / "tp1.json", doc), "--profile",
                       profile)
    assert code == 0
    lines = out.splitlines()
    assert table_row(out, "TP")[3:6] == ["0.530", "0.480", "-9.4%"]
    assert "at the runs' measured compute phase (1.00-1.00 x the model's time: the machine's " \
        "speed on the day): time error: worst 9.4%, mean 9.4%" in lines
    assert "at the runs' compute phase and store speed (store time 2.00-2.00 x the model's, the " \
        "file system's speed on the day): time error: worst 1.9%, mean 1.9%" in lines
    # The profile's own figures are untouched: the plain prediction stays 0.48 s.
    from ecluse import profile as prof
    from ecluse import validate as val
    from ecluse.model import ModelOptions
    app = prof.app_model(json.loads(pathlib.Path(profile).read_text()))
    m = val.read_report(str(tmp_path / "tp1.json"))
    fast = val.at_measured_speeds(app, m)
    assert fast.bandwidth.at(1) == pytest.approx(5e7) and app.bandwidth.at(1) == 1e8
    c = val.compare([m], app, prof.profile_power({}), ModelOptions.extended(), 2)[0]
    assert c.predicted.time_s == pytest.approx(0.48) and c.at_speeds.time_s == pytest.approx(0.52)


def test_validate_json_says_what_the_tables_say(capsys, tmp_path):
    # The two TP 1x2 repeats and the TP 1x1 run of the machine's-speed test above, with TP 1x1
    # writing an output in 0.02 s (-1.9% at its store speed) and the others in 0.02 s too
    # (their model's 0.02 s: store 1.00 x, error at their own speeds 0.0%).
    profile = write(tmp_path / "p.json", profile_doc(0.02, [1, 2], [1e8, 1e8], 2))
    runs = (("tp1", 1, 0.53, 0.44), ("tp2-a", 2, 0.27, 0.19), ("tp2-b", 2, 0.33, 0.25))
    reports = [write(tmp_path / f"{name}.json",
                     with_write(with_compute(runtime_report("tp", ranks, 1, 0, t), c), 0.02))
               for name, ranks, t, c in runs]
    code, out, _ = run(capsys, "validate", *reports, "--profile", profile, "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["schema"] == "ecluse-validate/1" and doc["repeats"] == "mean"
    assert doc["profile"] == profile and doc["model"].startswith("extended(")
    one = doc["reports"][0]
    assert (one["report"], one["configuration"]) == (reports[0], "TP 1x1")
    assert one["scenario"] == {"iterations": 22, "output_every": 5}
    assert one["time_s"]["measured"] == 0.53 and one["time_s"]["predicted"] == approx(0.48)
    assert one["time_error_at_measured_speeds"] == approx(-0.01 / 0.53)
    assert one["store_speed"] == approx(2.0)
    tp2 = next(c for c in doc["configurations"] if c["configuration"] == "TP 1x2")
    assert tp2["runs"] == 2 and tp2["time_s"]["measured"] == approx(0.30)
    assert tp2["compute_speed"] == approx(1.0) and tp2["time_error_at_measured_speeds"] == approx(0)
    errors = doc["errors"]["configurations"]
    assert errors["time_error"] == {"worst": approx(0.05 / 0.53), "mean": approx(0.05 / 0.53 / 2)}
    assert errors["time_error_at_measured_speeds"]["worst"] == approx(0.01 / 0.53)
    assert {"scenario": {"iterations": 22, "output_every": 5}, "criterion": "fastest",
            "predicted": "TP 1x2", "measured": "TP 1x2", "right": True} in doc["choices"]


def test_validate_combines_repeats_by_their_median_or_mean(capsys, tmp_path):
    # TP on 2 cores (labelled TP: one platform) predicted 0.300 s (see above); three repeats,
    # one slow: 0.30, 0.33, 0.45 s.
    profile = write(tmp_path / "p.json", profile_doc(0.02, [1, 2], [1e8, 1e8], 2))
    reports = [write(tmp_path / f"tp2-{k}.json", runtime_report("tp", 2, 1, 0, t))
               for k, t in enumerate((0.30, 0.33, 0.45))]
    reports.append(write(tmp_path / "dc.json", runtime_report("dc", 2, 1, 2, 0.40)))

    def tp_row(out):
        return next(line for line in out.splitlines()
                    if " TP " in line and line.startswith(" ")).split()

    code, out, _ = run(capsys, "validate", *reports, "--profile", profile)
    assert code == 0
    assert "per configuration (mean of the repeats; sd: standard deviation of the measured " \
        "time):" in out.splitlines()
    # mean 0.36 s: -16.7%; the sd is over the repeats either way (0.079 s)
    assert tp_row(out)[:7] == ["5", "TP", "3", "0.360", "0.079", "0.300", "-16.7%"]
    code, out, _ = run(capsys, "validate", *reports, "--profile", profile, "--repeats", "median")
    assert code == 0
    assert tp_row(out)[:7] == ["5", "TP", "3", "0.330", "0.079", "0.300", "-9.1%"]


def test_validate_groups_output_intervals(capsys, tmp_path):
    profile = write(tmp_path / "p.json", profile_doc(0.02, [1, 2], [1e8, 1e8], 2))
    reports = [write(tmp_path / f"{a}-{k}.json", runtime_report(a, 2, n, c, t, every=k))
               for a, n, c, t, k in (("tp", 1, 0, 0.30, 5), ("dc", 1, 2, 0.45, 5),
                                     ("tp", 1, 0, 0.50, 2), ("dc", 1, 2, 0.45, 2))]
    code, out, _ = run(capsys, "validate", *reports, "--profile", profile)
    assert code == 0
    lines = out.splitlines()
    assert "-- 22 iterations, output every 2" in lines
    assert "-- 22 iterations, output every 5" in lines
    # every 5: TP 0.30 s beats DC 0.44 s, measured too. every 2 (11 outputs, none after the
    # last): TP 0.22 + 11 * 0.02 = 0.44 s; DC 0.44 s + the last output's drain 0.01 s = 0.45 s;
    # measured TP 0.50 s, DC 0.45 s: a wrong pick, said per output interval
    assert "every 5: fastest: predicted TP, measured TP: right" in lines
    assert "every 2: fastest: predicted TP, measured DC(1): WRONG" in lines


def test_profile_bandwidth_counts_the_reports_bytes():
    from ecluse.profile import report_bytes_per_output
    doc = {"iterations": [{"iteration": 0, "bytes": 0}, {"iteration": 4, "bytes": 32448000},
                          {"iteration": 9, "bytes": 32448000}]}
    assert report_bytes_per_output(doc) == 32448000
    assert report_bytes_per_output(None) is None
    assert report_bytes_per_output({"iterations": []}) is None


# --- client copy, fixed overhead, median of repeats ---------------------------------------------

def test_validate_with_copy_and_overhead(capsys, tmp_path, validation):
    _, reports = validation
    # The validation fixture's profile plus a copy bandwidth of 2e8 B/s for 1 client and 1e8
    # for 2 each, and 0.01 s fixed overhead. TP: 0.36 + 0.01 = 0.37 s (-7.5% of 0.40), energy
    # 57 J + 0.01 s at 175 W = 58.75 J (-2.1% of 60). DC(1), 2 clients: each copies 8e6 / 2 B
    # at 1e8 B/s = 0.04 s per output, 4 outputs 0.16 s; interval 0.05 + 0.04 s > 0.04 s of I/O,
    # only the last drain (0.04 s) blocks: 0.2 + 0.16 + 0.04 + 0.01 = 0.41 s (+64.0% of 0.25),
    # 0.41 s * 250 W = 102.5 J (+64.0% of 62.5).
    doc = profile_doc(0.02, [1, 2], [4e8, 2e8], 4)
    doc["copy"] = {"clients": [1, 2], "bytes_per_s": [2e8, 1e8]}
    doc["overhead_s"] = {"value": 0.01, "runs": 3}
    profile = write(tmp_path / "pc.json", doc)
    code, out, _ = run(capsys, "validate", *reports, "--profile", profile, *PAPER_IDLE)
    assert code == 0
    assert "model: extended(tp_io, blocking, client_copy, fixed_overhead, approach_terms)" in out
    assert table_row(out, "TP")[3:] == ["0.400", "0.370", "-7.5%", "60.000", "58.750", "-2.1%"]
    assert table_row(out, "DC(1)")[3:] == ["0.250", "0.410", "+64.0%", "62.500", "102.500",
                                           "+64.0%"]
    code, out, _ = run(capsys, "validate", *reports, "--profile", profile, "--no-client-copy",
                       "--no-fixed-overhead")
    assert "model: extended(tp_io, blocking, approach_terms, idle_fraction=io)" in out
    assert table_row(out, "DC(1)")[3:5] == ["0.250", "0.240"]
    code, out, _ = run(capsys, "validate", *reports, "--profile", profile, "--model", "paper")
    assert "model: paper" in out
    assert table_row(out, "DC(1)")[3:5] == ["0.250", "0.200"]   # compute only: 0.02 * 20 / 2


def test_profile_measures_overhead_and_copy_from_reports():
    from ecluse import profile as prof
    # completion 2.5 s, loop 2.44 s: 0.06 s outside the loop
    rep = {"completion_time_s": 2.5, "iterations": [{"iteration": 4, "bytes": 3.2e7},
                                                    {"iteration": 9, "bytes": 3.2e7}],
           "roles": {"simulation": {"phases": {"write": {"wall_s": 0.016}}}}}
    assert prof.report_overhead(rep, {"wall_time_s": 2.44}) == pytest.approx(0.06)
    assert prof.report_overhead(None, {"wall_time_s": 2.44}) is None
    assert prof.report_overhead(rep, {}) is None
    # 2 outputs of 3.2e7 B copied in 0.016 s of the clients' write phase: 4e9 B/s per client
    assert prof.report_copy_bytes_per_s(rep, 2) == pytest.approx(4e9)
    assert prof.report_copy_bytes_per_s(rep, 0) is None
    # median (lower middle for an even count) or fastest of the repeats
    runs = [(3.0, "c"), (1.0, "a"), (2.0, "b")]
    assert prof._pick(runs, "median") == (2.0, "b") and prof._pick(runs, "fastest") == (1.0, "a")
    assert prof._pick(runs[:2], "median") == (1.0, "a")
    assert prof.median([0.03, 0.1, 0.05, 0.04]) == pytest.approx(0.045)
    assert prof.median([]) is None


def test_profile_document_carries_copy_and_overhead():
    from ecluse import profile as prof
    from ecluse.power import Power
    settings = prof.ProfileSettings(cores=(1,), nodes=(1,), ranks_per_node=1, cpus=2)
    runs = [prof.RunResult("cores", 1, 1, 2.5, 0.012, {}, 0.05),
            prof.RunResult("nodes", 1, 1, 2.5, 0.012, {}, 0.07)]
    points = [{"writers": 1, "bytes_per_output": 3.2e7, "write_time_s": 0.032, "bytes_per_s": 1e9,
               "copy_bytes_per_s": 5e9, "overhead_s": 0.03},
              {"writers": 2, "bytes_per_output": 3.2e7, "write_time_s": 0.016, "bytes_per_s": 2e9,
               "copy_bytes_per_s": 4e9, "overhead_s": 0.06}]
    doc = prof.build_profile(settings, runs, points, Power(100.0, 250.0, "x", "default"))
    assert doc["keep"] == "median"
    assert doc["copy"]["clients"] == [1, 2] and doc["copy"]["bytes_per_s"] == [5e9, 4e9]
    # median of 0.05, 0.07, 0.03, 0.06 = (0.05 + 0.06) / 2
    assert doc["overhead_s"]["value"] == pytest.approx(0.055) and doc["overhead_s"]["runs"] == 4
    app = prof.app_model(doc)
    assert app.copy.at(1) == 5e9 and app.overhead_s == pytest.approx(0.055)
    from ecluse.cli import describe_profile
    text = describe_profile(doc)
    assert "client copy: 1 clients 5000 MB/s each, 2 clients 4000 MB/s each" in text
    assert "fixed overhead: 55.0 ms per run" in text
    old = dict(doc, copy=None, overhead_s=None)   # profiles before these terms
    assert prof.app_model(old).copy is None and prof.app_model(old).overhead_s == 0.0
