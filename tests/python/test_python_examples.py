"""The Python examples (examples/python) under mpiexec with time partitioning, dedicated cores
and dedicated nodes: every value read back with h5py, and the same files as the C example."""
import os
import pathlib
import subprocess
import sys

import h5py
import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("ECLUSE_BUILD", ROOT / "build"))
EXAMPLES = ROOT / "examples" / "python"
sys.path.insert(0, str(ROOT / "examples"))
import read_output  # noqa: E402
from mpirun import child_env, h5_contents, mpiexec  # noqa: E402

pytestmark = pytest.mark.skipif(
    not list((BUILD / "python" / "ecluse").glob("_native*.so")),
    reason=f"the native module was not built in {BUILD} (needs nanobind in the venv)")

# The same switches as tests/python/test_example.py: 3 clients and 1 server on 4 ranks.
APPROACHES = {
    "tp": '<dedicated cores="0" nodes="0"/>',
    "dc": '<dedicated cores="1" nodes="0"/><virtual-nodes ranks-per-node="4"/>',
    "dn": '<dedicated cores="0" nodes="1"/><virtual-nodes ranks-per-node="1"/>',
}




def run(directory, ranks, program, *args):
    result = subprocess.run([mpiexec(), "-n", str(ranks), *program, *map(str, args)],
                            cwd=directory, env=child_env(), capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def configure(directory, source, approach):
    directory.mkdir(exist_ok=True)
    text = source.read_text().replace('<dedicated cores="0" nodes="0"/>', APPROACHES[approach])
    (directory / source.name).write_text(text)



def run_simulation(directory, ranks, approach, iterations=3):
    configure(directory, ROOT / "examples" / "simulation.xml", approach)
    return run(directory, ranks, [sys.executable, EXAMPLES / "simulation.py"], "simulation.xml",
               iterations)


def test_simulation_writes_what_the_c_example_writes(tmp_path):
    stdout = run_simulation(tmp_path / "py", 2, "tp")
    assert "heat: 3 iterations on 2 ranks written" in stdout
    assert "event checkpoint at iteration 2" in stdout
    out = tmp_path / "py" / "out"
    assert read_output.check_per_process(out, 3, 2) == 6
    assert read_output.check_collective(out, 3, 2) == 3
    configure(tmp_path / "c", ROOT / "examples" / "simulation.xml", "tp")
    run(tmp_path / "c", 2, [BUILD / "examples" / "ecluse_example_simulation"], "simulation.xml", 3)
    python, c = h5_contents(out), h5_contents(tmp_path / "c" / "out")
    assert len(python) > 30 and python.keys() == c.keys()
    assert python == c


@pytest.mark.parametrize("approach", ["dc", "dn"])
def test_simulation_under_dedicated_resources_stores_every_value(tmp_path, approach):
    stdout = run_simulation(tmp_path, 4, approach)
    assert "heat: 3 iterations on 3 ranks written" in stdout
    assert "event checkpoint at iteration 2" in stdout
    assert read_output.check_per_process(tmp_path / "out", 3, 3) == 3
    assert read_output.check_collective(tmp_path / "out", 3, 3) == 3


def serial_heat(nx, ny, alpha, steps, every):
    """heat.py's steps on the whole grid in one array, written anew (same arithmetic, element by
    element, so the same bits): {step: (temperature, change)}."""
    i, j = np.arange(nx)[:, None], np.arange(ny)[None, :]
    u = np.zeros((nx + 2, ny + 2))
    u[1:-1, 1:-1] = ((i * 37 + j * 11) % 17) / 16.0
    u[0, :] = 1.0  # the fixed boundary above the first row; 0 elsewhere
    outputs = {}
    for s in range(steps):
        c = u[1:-1, 1:-1]
        new = c + alpha * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * c)
        change = new - c
        u[1:-1, 1:-1] = new
        if (s + 1) % every == 0:
            outputs[s] = (u[1:-1, 1:-1].copy(), change)
    return outputs


@pytest.mark.parametrize("approach,grid", [("tp", "2x2"), ("dc", "3x1"), ("dn", "3x1")])
def test_heat_equation_output_matches_a_serial_run_exactly(tmp_path, approach, grid):
    configure(tmp_path, EXAMPLES / "heat.xml", approach)
    stdout = run(tmp_path, 4, [sys.executable, EXAMPLES / "heat.py"], "heat.xml", 12, 4)
    assert f"heat2d: 12 steps on {grid} ranks, output every 4" in stdout
    expected = serial_heat(24, 36, 0.2, 12, 4)
    assert {p.name for p in (tmp_path / "out").glob("*.h5")} == {
        f"heat2d_It{s}.h5" for s in expected}
    for s, (temperature, change) in expected.items():
        with h5py.File(tmp_path / "out" / f"heat2d_It{s}.h5", "r") as f:
            np.testing.assert_array_equal(f["temperature"][...], temperature)
            np.testing.assert_array_equal(f["change"][...], change)
            assert np.abs(f["change"][...]).max() > 0
