"""The side-by-side harness (bench/harness): one tiny configuration per approach end to end,
its results.json against the documented schema, its report and plots; the validator on a
good and on a broken document; and the baselines without Ecluse writing, bit for bit, the
data the Ecluse workloads write."""
import copy
import importlib.util
import json
import pathlib
import shutil
import sys

import h5py
import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "harness"))

import harness  # noqa: E402
import runs  # noqa: E402

PLOTS = ["completion_time", "write_time", "throughput", "cpu_per_role", "energy",
         "average_power", "io_per_watt"]


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


adios2_baseline = load("adios2_baseline", ROOT / "bench" / "harness" / "adios2_baseline.py")


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    """The smoke matrix (one tiny configuration per approach), run once for these tests."""
    out = tmp_path_factory.mktemp("harness")
    # The test leaves the machine's free page reporting alone (bench/page_reporting.py).
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ECLUSE_BENCH_PAGE_REPORTING", "keep")
        document = harness.benchmark("smoke", 1, out)
    return out, document


def test_every_approach_runs_once_or_says_why_not(smoke):
    _, document = smoke
    for approach, info in document["approaches"].items():
        done = [r for r in document["runs"] if r["approach"] == approach]
        if info["available"]:
            assert [r["status"] for r in done] == ["ok"], (approach, done)
        else:
            assert done == [] and info["reason"]
            skipped = [s for s in document["skipped"] if s["approach"] == approach]
            assert skipped and all(s["reason"].startswith("unavailable: ") for s in skipped)
    for approach in harness.ECLUSE + ["hdf5-fpp", "hdf5-collective"]:
        assert document["approaches"][approach]["available"], approach


def test_results_json_matches_its_schema(smoke):
    out, document = smoke
    on_disk = json.loads((out / "results.json").read_text())
    assert harness.validate(on_disk) == []
    assert on_disk["machine"]["cores"] >= 1 and on_disk["machine"]["max_ranks"] == 4
    assert on_disk["machine"]["oversubscribed"] == (4 > on_disk["machine"]["cores"])
    assert on_disk["machine"]["free_page_reporting"] in (
        "free page reporting absent: nothing changed",
        "free page reporting kept (ECLUSE_BENCH_PAGE_REPORTING=keep): nothing changed")


def test_runs_hand_over_the_bytes_of_their_workload(smoke):
    _, document = smoke
    for run in document["runs"]:
        if run["workload"] != "proxy":
            continue
        clients = {"ecluse-dc": 3, "ecluse-dn": 2}.get(run["approach"], 4)
        assert run["clients"] == clients
        # 2 outputs of 6 fields of 6x5x4 doubles per client
        assert run["metrics"]["bytes_written"] == 2 * 6 * clients * 6 * 5 * 4 * 8
        assert run["metrics"]["bytes_on_disk"] > run["metrics"]["bytes_written"]


def test_cpu_and_energy_come_from_the_run_report_or_are_null(smoke):
    out, document = smoke
    text = (out / "report.md").read_text()
    for run in document["runs"]:
        m = run["metrics"]
        if run["report"] is None:
            assert m["report_available"] is False
            assert m["cpu_percent_by_role"] is None and m["energy_j"] is None
            assert m["mb_s_per_w"] is None
            if run["approach"] in harness.ECLUSE:
                assert "report not available" in text
        else:
            assert m["report_available"] is True
            roles = run["report"].get("roles", {})
            assert m["cpu_percent_by_role"] == {
                name: role["cpu_usage_percent"] for name, role in roles.items()} or None
            assert m["energy_j"] == run["report"].get("energy", {}).get("joules")


def test_report_and_plots_are_written(smoke):
    out, document = smoke
    text = (out / "report.md").read_text()
    assert "## Machine" in text and "## proxy" in text and "vs TP" in text
    for name in PLOTS:
        png = out / f"{name}.png"
        assert png.stat().st_size > 1000, name
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"({name}.png)" in text


def minimal_document():
    """A small valid document, written by hand as the schema in docs/harness.md says."""
    metrics = {name: None for name in harness.schema.METRICS}
    metrics.update(completion_time_s=1.5, bytes_on_disk=4096, job_cpu_s=0.5,
                   job_cpu_percent=25.0, report_available=False)
    run = {"id": "proxy/ecluse-tp/r2/x#0", "workload": "proxy", "approach": "ecluse-tp",
           "ranks": 2, "clients": 2, "oversubscribed": False, "parameters": {"local": "4x4x4"},
           "repetition": 0, "status": "ok", "error": None, "command": ["mpiexec"],
           "summary": {"app": "proxy"}, "report": None, "metrics": metrics}
    machine = {"cores": 2, "cpu_model": "cpu", "memory_bytes": 1 << 30, "kernel": "6",
               "hostname": "h", "mpiexec": "mpiexec", "mpi_version": "4", "python": "3.11",
               "loadavg_at_start": 0.5, "max_ranks": 2, "oversubscribed": False}
    approach = {"kind": "ecluse", "label": "Ecluse TP", "available": True, "reason": None,
                "notes": "n"}
    return {"schema": "ecluse-harness/1", "created": "2026-01-01T00:00:00+00:00",
            "matrix": "smoke", "repetitions": 1, "build": "build", "duration_s": 2.0,
            "machine": machine, "approaches": {"ecluse-tp": approach}, "runs": [run],
            "skipped": [], "aggregates": [], "report_note": "note"}


def test_validator_accepts_a_good_document():
    assert harness.validate(minimal_document()) == []
    document = minimal_document()  # results written since the harness pauses page reporting
    document["machine"]["free_page_reporting"] = "free page reporting absent: nothing changed"
    assert harness.validate(document) == []
    document["machine"]["free_page_reporting"] = 1
    document["machine"]["swap"] = "none"
    assert harness.validate(document) == ["$.machine.free_page_reporting: expected string, got "
                                          "integer", "$.machine.swap: unexpected key"]


def test_validator_names_every_problem_of_a_broken_document():
    document = minimal_document()
    document["schema"] = "ecluse-harness/0"
    del document["machine"]["cores"]
    document["extra"] = True
    run = document["runs"][0]
    run["ranks"] = 2.0
    run["status"] = "done"
    run["metrics"]["energy_j"] = "12 J"
    run["metrics"]["cpu_percent_by_role"] = {"simulation": None}
    failed = copy.deepcopy(run)
    failed.update(status="failed", error=None, metrics=None)
    document["runs"].append(failed)
    assert harness.validate(document) == [
        "$.schema: expected one of 'ecluse-harness/1', got 'ecluse-harness/0'",
        "$.machine.cores: missing",
        "$.runs[0].ranks: expected integer, got number",
        "$.runs[0].status: expected one of 'ok', 'failed', got 'done'",
        "$.runs[0].metrics.cpu_percent_by_role.simulation: expected number, got null",
        "$.runs[0].metrics.energy_j: expected number, got string",
        "$.runs[1].ranks: expected integer, got number",
        "$.extra: unexpected key",
        "$.runs[1].error: empty for a run whose status is 'failed'",
    ]
    assert harness.validate([]) == ["$: expected object, got array"]


def test_adios2_baseline_lays_ranks_out_as_mpi_dims_create():
    assert [adios2_baseline.dims_create(n) for n in (1, 2, 4, 6, 8, 12)] == [
        [1, 1, 1], [2, 1, 1], [2, 2, 1], [3, 2, 1], [2, 2, 2], [3, 2, 2]]


# --- the baselines write what Ecluse writes -------------------------------------------------

WORKLOADS = {
    "proxy": ({"local": "6x5x4", "variables": 4, "output_every": 2, "iterations": 5}, "proxy"),
    "vorpal-io": ({"block": "6x5x4", "steps": 2}, "vorpal"),
    "vpic-io": ({"particles": 500, "steps": 2}, "vpic"),
}


def run_in(directory, workload, approach, ranks=4):
    """Runs one configuration through the harness's own command line; returns its summary."""
    env = runs.Environment.from_os()
    spec = runs.Spec(workload, WORKLOADS[workload][0], approach, ranks)
    command, config = runs.command_of(env, spec)
    assert pathlib.Path(command[4]).exists(), f"{command[4]} is not built"
    directory.mkdir()
    if config is not None:
        shutil.copy(config, directory / config.name)
    code, out, err, _, _ = runs.execute(command, directory,
                                        runs.launch_environment(directory, "hdf5"), 120)
    assert code == 0, err
    return runs.summary_line(out)


def datasets(path):
    with h5py.File(path, "r") as f:
        return {name: f[name][...] for name in f}


def assemble(files):
    """The global arrays put together from file-per-process blocks and their global_offset."""
    pieces = {}
    for path in files:
        with h5py.File(path, "r") as f:
            for name in f:
                offset = tuple(int(o) for o in f[name].attrs["global_offset"])
                pieces.setdefault(name, []).append((offset, f[name][...]))
    return {name: place(blocks) for name, blocks in pieces.items()}


def place(blocks):
    rank = blocks[0][1].ndim
    shape = tuple(max(offset[d] + data.shape[d] for offset, data in blocks) for d in range(rank))
    whole = np.zeros(shape, dtype=blocks[0][1].dtype)
    for offset, data in blocks:
        whole[tuple(slice(o, o + n) for o, n in zip(offset, data.shape))] = data
    return whole


def assert_same_bits(expected, actual, where):
    assert sorted(expected) == sorted(actual), where
    for name, values in expected.items():
        other = actual[name]
        assert (other.dtype, other.shape) == (values.dtype, values.shape), f"{where}/{name}"
        assert other.tobytes() == values.tobytes(), f"{where}/{name}: bits differ"


@pytest.mark.parametrize("workload", WORKLOADS)
def test_baselines_write_the_bits_ecluse_writes(tmp_path, workload):
    prefix = WORKLOADS[workload][1]
    ecluse = run_in(tmp_path / "ecluse", workload, "ecluse-tp")
    collective = run_in(tmp_path / "collective", workload, "hdf5-collective")
    fpp = run_in(tmp_path / "fpp", workload, "hdf5-fpp")
    assert collective["approach"] == "hdf5-collective" and fpp["approach"] == "hdf5-fpp"
    for summary in (collective, fpp):
        for key in ("app", "ranks", "outputs", "bytes_written"):
            assert summary[key] == ecluse[key], key
    reference = sorted((tmp_path / "ecluse" / "out" / prefix).glob("*.h5"))
    assert len(reference) == ecluse["outputs"]
    for path in reference:
        iteration = path.stem.rsplit("_It", 1)[1]
        expected = datasets(path)
        mine = tmp_path / "collective" / "out" / prefix / path.name
        assert_same_bits(expected, datasets(mine), mine.name)
        pieces = sorted((tmp_path / "fpp" / "out" / prefix).glob(f"{prefix}_It{iteration}_Pr*.h5"))
        assert len(pieces) == 4
        assert_same_bits(expected, assemble(pieces), f"{prefix} It{iteration} file per process")


# The example report of docs/report.md (schema ecluse-report/1), trimmed to what is read.
REPORT = {
    "schema": "ecluse-report/1", "approach": "dn",
    "roles": {"simulation": {"ranks": 3, "cpu_usage_percent": 86.1},
              "dedicated-node": {"ranks": 1, "cpu_usage_percent": 12.5}},
    "completion_time_s": 1.25,
    "energy": {"source": "model", "quality": "modelled", "joules": 312.5,
               "average_power_w": 250.0,
               "by_role": {"simulation": {"joules": 280.0, "label": "apportioned by CPU time"}}},
    "io": {"bytes": 50_000_000, "rate_mb_s": 40.0, "rate_mb_s_per_w": 0.16},
}


def test_cpu_and_energy_are_read_from_an_ecluse_report():
    spec = runs.Spec("proxy", {}, "ecluse-dn", 4)
    summary = {"app": "proxy", "outputs": 2, "bytes_written": 50_000_000,
               "wall_time_s": 1.0, "write_time_mean_s": 0.25, "write_time_max_s": 0.5}
    m = harness.metrics.run_metrics(spec, summary, REPORT, 2.0, 4.0, 60_000_000)
    assert m["cpu_percent_by_role"] == {"simulation": 86.1, "dedicated-node": 12.5}
    assert (m["energy_j"], m["energy_source"], m["energy_quality"]) == (312.5, "model", "modelled")
    assert m["energy_by_role_j"] == {"simulation": 280.0} and m["average_power_w"] == 250.0
    assert m["throughput_mb_s"] == pytest.approx(25.0)  # 50 MB in 2 s
    assert m["mb_s_per_w"] == 0.16  # the report's own figure: MB per joule of the session
    without_io = {k: v for k, v in REPORT.items() if k != "io"}
    m2 = harness.metrics.run_metrics(spec, summary, without_io, 2.0, 4.0, 60_000_000)
    assert m2["mb_s_per_w"] == pytest.approx(50 / 312.5)
    assert m["write_rate_mb_s"] == pytest.approx(100.0)  # 25 MB per output in 0.25 s
    assert m["write_jitter_s"] == pytest.approx(0.25) and m["job_cpu_percent"] == 50.0
