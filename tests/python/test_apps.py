"""The proxy simulation and the VPIC-IO and VORPAL-IO kernels run on a tiny size under time
partitioning, dedicated cores and dedicated nodes; their output is checked value by value."""
import importlib.util
import json
import os
import pathlib
import shutil
import subprocess

import pytest

from mpirun import mpiexec

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("ECLUSE_BUILD", ROOT / "build"))

# ranks launched, and how many of them are clients (the simulation)
APPROACHES = {
    "tp": (4, 4),  # every rank computes and writes: a 2x2 process grid for the proxy
    "dc": (3, 2),  # one node of 3 ranks, the last one a dedicated core
    "dn": (4, 2),  # two virtual nodes of 2 ranks (proxy-dn.xml), one of them dedicated
}


def load_checker(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


check_proxy = load_checker("check_proxy", ROOT / "apps" / "proxy" / "check_output.py")
check_kernels = load_checker("check_kernels", ROOT / "apps" / "kernels" / "check_output.py")



def run_app(tmp_path, ranks, binary, config, *args):
    """Runs one workload in tmp_path with its configuration; returns the completed process."""
    folder = "proxy" if binary == "ecluse_proxy" else "kernels"
    program = BUILD / "apps" / folder / binary
    assert program.exists(), f"{program} is not built (configure with ECLUSE_BUILD_EXAMPLES=ON)"
    shutil.copy(ROOT / "apps" / folder / config, tmp_path / config)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    return subprocess.run([mpiexec(), "-n", str(ranks), str(program), "--config", config, *args],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def summary_of(result, approach):
    """The JSON line the workload printed."""
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    assert len(lines) == 1, result.stdout
    return json.loads(lines[0])


def assert_ranks(summary, approach):
    ranks, clients = APPROACHES[approach]
    assert (summary["world_ranks"], summary["ranks"]) == (ranks, clients)
    assert summary["write_time_max_s"] >= summary["write_time_mean_s"] >= 0


def assert_no_shared_memory_left():
    assert not [p for p in pathlib.Path("/dev/shm").iterdir() if p.name.startswith("ecluse-")]


@pytest.mark.parametrize("approach", APPROACHES)
def test_proxy_output_matches_an_independent_numpy_run(tmp_path, approach):
    ranks, clients = APPROACHES[approach]
    variables = "temperature,pressure,u,v,w,qv" if approach != "dc" else "temperature,u,w"
    result = run_app(tmp_path, ranks, "ecluse_proxy", f"proxy-{approach}.xml", "--local", "6x5x4",
                     "--iterations", "5", "--output-every", "2", "--variables", variables)
    summary = summary_of(result, approach)
    assert_ranks(summary, approach)
    names = variables.split(",")
    files, shape = check_proxy.check(tmp_path / "out" / "proxy", 5, 2, names)
    assert files == 2 and summary["outputs"] == 2 and summary["iterations"] == 5
    assert shape[0] * shape[1] == clients * 6 * 5 and shape[2] == 4
    assert summary["bytes_written"] == 2 * len(names) * clients * 6 * 5 * 4 * 8
    assert_no_shared_memory_left()


def test_proxy_compute_only_writes_nothing(tmp_path):
    result = run_app(tmp_path, 2, "ecluse_proxy", "proxy-tp.xml", "--local", "6x5x4",
                     "--iterations", "3", "--output-every", "1", "--compute-only")
    summary = summary_of(result, "tp")
    assert summary["compute_only"] is True
    assert (summary["outputs"], summary["bytes_written"]) == (0, 0)
    assert not (tmp_path / "out").exists()


def test_proxy_refuses_an_unknown_option_on_every_rank(tmp_path):
    result = run_app(tmp_path, 2, "ecluse_proxy", "proxy-tp.xml", "--variables", "temprature")
    assert result.returncode == 2
    assert "--variables: unknown field 'temprature'" in result.stderr
    assert "usage: ecluse_proxy" in result.stderr


@pytest.mark.parametrize("approach", APPROACHES)
def test_vpic_io_kernel_writes_every_particle(tmp_path, approach):
    ranks, clients = APPROACHES[approach]
    result = run_app(tmp_path, ranks, "ecluse_vpic_io", f"vpic-io-{approach}.xml",
                     "--particles", "1000", "--steps", "3")
    summary = summary_of(result, approach)
    assert_ranks(summary, approach)
    assert check_kernels.check_vpic(tmp_path / "out" / "vpic", 1000, clients, 3) == 3
    assert summary["bytes_written"] == 3 * 8 * 4 * 1000 * clients
    assert_no_shared_memory_left()


@pytest.mark.parametrize("approach", APPROACHES)
def test_vorpal_io_kernel_writes_every_block_in_place(tmp_path, approach):
    ranks, clients = APPROACHES[approach]
    result = run_app(tmp_path, ranks, "ecluse_vorpal_io", f"vorpal-io-{approach}.xml",
                     "--block", "6x5x4", "--steps", "3")
    summary = summary_of(result, approach)
    assert_ranks(summary, approach)
    files, shape = check_kernels.check_vorpal(tmp_path / "out" / "vorpal", (6, 5, 4), 3)
    assert files == 3 and shape[0] * shape[1] * shape[2] == clients * 6 * 5 * 4
    assert summary["bytes_written"] == 3 * 3 * 8 * clients * 6 * 5 * 4
    assert_no_shared_memory_left()
