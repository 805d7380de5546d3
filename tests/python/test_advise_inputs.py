"""The advisor's inputs (issue 15, items 1 and 5): never zero I/O by default, every input named
with its source, advice from one real run's report, and an `<architecture>` block that a real
program runs with."""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("ECLUSE_BUILD", ROOT / "build"))
EXAMPLE = BUILD / "examples" / "ecluse_example_simulation"
sys.path.insert(0, str(ROOT / "python"))
from ecluse.cli import main  # noqa: E402

PLATFORM = ["--t-base", 1, "--nodes", 4, "--cores-per-node", 4, "--iterations", 100]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("extra, missing", [
    ([], "no output interval: give --output-every K and --bytes-per-output"),
    (["--output-every", 10], "no bytes per output: give --bytes-per-output"),
    (["--output-every", 10, "--bytes-per-output", "1GB"], "no write bandwidth: give --bandwidth"),
])
def test_refuses_without_a_measured_io_input(capsys, extra, missing):
    code, _, err = run(capsys, "advise", *PLATFORM, *extra)
    assert code == 2 and missing in err


def test_names_its_inputs_and_the_saving_band(capsys):
    code, out, _ = run(capsys, "advise", *PLATFORM, "--output-every", 10, "--bytes-per-output",
                       "1GB", "--bandwidth", "2GB/s")
    assert code == 0
    assert "input: compute: T_base 1 s, perfect scalability [given]" in out
    assert "input: output: every 10, 1000.000 MB [given]" in out
    assert "input: power: default-uncalibrated (100 W idle, 250 W max) [default]" in out
    assert re.search(r"^saving: \S+ uses [0-9.]+% less energy than \S+ \(uncertainty unknown",
                     out, re.M)


def mpi_run(cwd, ranks, config_text, iterations=4):
    (cwd / "simulation.xml").write_text(config_text)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", ECLUSE_REPORT=str(cwd / "run.json"))
    launcher = os.environ.get("ECLUSE_MPIEXEC") or shutil.which("mpiexec.openmpi") or "mpiexec"
    done = subprocess.run([launcher, "-n", str(ranks), str(EXAMPLE), "simulation.xml",
                           str(iterations)], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads((cwd / "run.json").read_text())


@pytest.mark.skipif(not EXAMPLE.exists(), reason="example not built")
def test_advice_from_a_report_runs_as_pasted(capsys, tmp_path):
    # A TP run of the example on 4 ranks in 2 virtual nodes; its report is the only input.
    text = (ROOT / "examples" / "simulation.xml").read_text()
    tp_line = '<dedicated cores="0" nodes="0"/>'
    first = tmp_path / "first"
    first.mkdir()
    mpi_run(first, 4, text.replace(tp_line, tp_line + '<virtual-nodes ranks-per-node="2"/>'))
    code, out, err = run(capsys, "advise", "--from-report", first / "run.json", "--host-cpus", 2)
    assert code == 0, err
    assert "platform: 2 nodes x 2 cores (virtual nodes on one host of 2 CPUs)" in out
    assert re.search(r"^input: write time: .* \[measured\]$", out, re.M)
    code, xml, _ = run(capsys, "advise", "--from-report", first / "run.json", "--host-cpus", 2,
                       "--xml")
    assert code == 0 and '<virtual-nodes ranks-per-node="2"/>' in xml
    pasted = re.sub(r"<architecture>.*</architecture>", xml.strip(), text, flags=re.S)
    second = tmp_path / "second"
    second.mkdir()
    report = mpi_run(second, 4, pasted)
    dedicated = re.search(r'<dedicated cores="(\d+)" nodes="(\d+)"/>', xml).groups()
    arch = report["architecture"]
    assert (str(arch["dedicated_cores"]), str(arch["dedicated_nodes"])) == dedicated
    assert arch["ranks_per_node"] == 2
    size = int(re.search(r'size="(\d+)MiB"', xml).group(1))
    assert arch["buffer_bytes"] == size * 2 ** 20


@pytest.mark.skipif(not EXAMPLE.exists(), reason="example not built")
def test_from_report_takes_the_drain_out_of_the_fixed_overhead(capsys, tmp_path):
    # Under DC the clients wait in finalize for their dedicated cores' last stores; the report
    # says how long (finalize_wait_s, within their setup phase), and the advice's fixed overhead
    # leaves it out: the model counts the drain as I/O already.
    text = (ROOT / "examples" / "simulation.xml").read_text()
    dc = text.replace('<dedicated cores="0" nodes="0"/>',
                      '<dedicated cores="1" nodes="0"/><virtual-nodes ranks-per-node="2"/>')
    report = mpi_run(tmp_path, 4, dc)
    sim = report["roles"]["simulation"]
    setup, wait = sim["phases"]["setup"]["wall_s"], sim["finalize_wait_s"]
    assert 0 < wait < setup
    code, out, err = run(capsys, "advise", "--from-report", tmp_path / "run.json",
                         "--host-cpus", 2)
    assert code == 0, err
    ranks = sim["ranks"]
    assert (f"input: fixed overhead: {(setup - wait) / ranks * 1e3:.1f} ms (clients' setup "
            f"phase, without their {wait / ranks * 1e3:.1f} ms wait in finalize for the "
            "servers' last stores) [measured]") in out
    # Time partitioning has no servers to wait for.
    tp = mpi_run(tmp_path, 2, text)
    assert tp["roles"]["simulation"]["finalize_wait_s"] == 0
