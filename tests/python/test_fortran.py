"""The Fortran module through its examples under mpiexec (TP, DC, DN), read back with h5py; the
Fortran example writes exactly what the C example writes; the error paths and their messages."""
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("ECLUSE_BUILD", ROOT / "build"))
FORTRAN_EXAMPLES = BUILD / "examples" / "fortran"
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "examples" / "fortran"))
sys.path.insert(0, str(ROOT / "tests" / "python"))
import read_output  # noqa: E402
import read_stencil  # noqa: E402
from mpirun import h5_contents, mpiexec  # noqa: E402

pytestmark = pytest.mark.skipif(not (FORTRAN_EXAMPLES / "ecluse_fortran_simulation").exists(),
                                reason=f"the Fortran examples are not built in {BUILD}")

TP = '<dedicated cores="0" nodes="0"/>'
# (architecture line, clients out of 4 ranks, writers of the per-process files)
APPROACHES = {
    "TP": (TP, 4, 4),
    "DC": ('<dedicated cores="1" nodes="0"/><virtual-nodes ranks-per-node="4"/>', 3, 1),
    "DN": ('<dedicated cores="0" nodes="1"/><virtual-nodes ranks-per-node="1"/>', 3, 1),
}



def run(directory, program, ranks, xml_source=None, architecture=TP, *args):
    """Runs program in directory with its XML (approach switched by architecture)."""
    directory.mkdir(parents=True, exist_ok=True)
    if xml_source:
        text = xml_source.read_text().replace(TP, architecture)
        (directory / xml_source.name).write_text(text)
        args = (xml_source.name, *args)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    result = subprocess.run([mpiexec(), "-n", str(ranks), str(program), *args],
                            cwd=directory, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert not list((directory / "out").rglob("*.part")), "no partial file may stay behind"
    return result


def run_simulation(directory, ranks, architecture=TP):
    return run(directory, FORTRAN_EXAMPLES / "ecluse_fortran_simulation", ranks,
               ROOT / "examples" / "fortran" / "simulation.xml", architecture, "3")


@pytest.mark.parametrize("approach", APPROACHES)
def test_simulation_output_reads_back(tmp_path, approach):
    architecture, clients, writers = APPROACHES[approach]
    result = run_simulation(tmp_path, 4, architecture)
    assert f"heat: 3 iterations on {clients} ranks written" in result.stdout
    assert "event checkpoint at iteration 2" in result.stdout
    out = tmp_path / "out"
    assert read_output.check_per_process(out, 3, clients) == 3 * writers
    assert read_output.check_collective(out, 3, clients) == 3


@pytest.mark.parametrize("approach", APPROACHES)
def test_stencil_stores_every_value(tmp_path, approach):
    architecture, clients, _ = APPROACHES[approach]
    result = run(tmp_path, FORTRAN_EXAMPLES / "ecluse_fortran_stencil", 4,
                 ROOT / "examples" / "fortran" / "stencil.xml", architecture)
    grid = "2 x 2" if clients == 4 else "3 x 1"
    assert f"stencil: 12 steps, output every 4, on {grid} ranks" in result.stdout
    assert read_stencil.check(tmp_path / "out", clients) == 4
    assert not [p for p in pathlib.Path("/dev/shm").iterdir() if p.name.startswith("ecluse-")]


@pytest.mark.parametrize("approach", ["TP", "DN"])
def test_fortran_example_writes_what_the_c_example_writes(tmp_path, approach):
    architecture = APPROACHES[approach][0]
    run_simulation(tmp_path / "fortran", 4, architecture)
    run(tmp_path / "c", BUILD / "examples" / "ecluse_example_simulation", 4,
        ROOT / "examples" / "simulation.xml", architecture, "3")
    fortran, c = h5_contents(tmp_path / "fortran" / "out"), h5_contents(tmp_path / "c" / "out")
    assert len(c) > 20
    assert fortran.keys() == c.keys()
    assert fortran == c


@pytest.fixture(scope="module")
def errors(tmp_path_factory):
    directory = tmp_path_factory.mktemp("errors")
    result = run(directory, BUILD / "fortran" / "ecluse_fortran_errors", 1)
    return dict(line.split("|", 1) for line in result.stdout.splitlines() if "|" in line)


def test_errors_decided_by_the_c_library_read_the_same_in_fortran(errors):
    assert errors["before-initialize"] == errors["before-initialize-c"] == (
        "ECLUSE_NOT_INITIALIZED|Ecluse is not initialized; call ecluse_initialize first (or it "
        "was finalized).")
    assert errors["unknown-variable"] == errors["unknown-variable-c"] == (
        "ECLUSE_UNDEFINED_VARIABLE|variable 'temprature' is not declared in <string>; did you "
        "mean 'temperature'? Declare it with <variable name=\"temprature\" layout=\"...\"/>.")
    assert errors["unknown-parameter"] == (
        "ECLUSE_UNDEFINED_PARAMETER|parameter 'NZ' is not declared in the configuration")


def test_fortran_checks_refuse_arrays_that_do_not_fit_the_layout(errors):
    subject = "ECLUSE_ARGUMENT_ERROR|write of variable 'temperature': "
    assert errors["wrong-size"] == subject + (
        "its layout has shape (12,10) = 120 elements (ghosts included) but the array passed has "
        "shape (10,10) = 100 elements; pass an array of the layout's size.")
    # A section is copied in by the compiler (read back in test_stencil_stores_every_value),
    # then checked like any array.
    assert errors["strided-wrong-size"] == subject + (
        "its layout has shape (12,10) = 120 elements (ghosts included) but the array passed has "
        "shape (8,10) = 80 elements; pass an array of the layout's size.")
    assert errors["transposed"] == subject + (
        "its layout has shape (12,10) = 120 elements in Fortran order (ghosts included) but the "
        "array passed has shape (10,12) = 120 elements; the layout's dimensions are read in C "
        "order (the last varies fastest): add language=\"fortran\" to its <layout> or to "
        "<simulation>.")
    assert errors["reshaped"] == subject + (
        "its layout has shape (12,10) = 120 elements in Fortran order (ghosts included) but the "
        "array passed has shape (15,8) = 120 elements; pass an array of the layout's shape, or "
        "of rank 1.")
    assert errors["flat"] == "ECLUSE_OK|"  # rank 1: taken as it is
    assert errors["wrong-type"] == subject + (
        "its layout holds real(8) elements but the array passed is real(4); pass a real(8) array.")
    # Fortran has no unsigned integers: an unsigned layout takes the integer kind of its size.
    assert errors["unsigned-wrong-type"] == (
        "ECLUSE_ARGUMENT_ERROR|write of variable 'mask': its layout holds uint16 elements but the "
        "array passed is real(8); pass an integer(2) array.")
    assert errors["unsigned-as-integer"] == "ECLUSE_OK|"
    assert errors["unsigned-type"] == "8 ECLUSE_OK"  # ECLUSE_TYPE_UINT16
    assert errors["unsigned-parameter"] == "-1 ECLUSE_OK"  # 65535: the bits of integer(2) -1
    assert errors["alloc-wrong-rank"] == (
        "ECLUSE_ARGUMENT_ERROR|alloc of variable 'temperature': its layout has shape (12,10) = "
        "120 elements but the pointer passed has rank 3; pass a pointer of rank 2 or 1 (at most "
        "4; beyond, use ecluse_alloc with a type(c_ptr) and c_f_pointer).")
    # An assumed-size dummy (x(n,*)): only the leading extent is known and checked.
    assert errors["assumed-size"] == "ECLUSE_OK|"
    assert errors["assumed-size-wrong-extent"] == subject + (
        "its layout has shape (12,10) = 120 elements in Fortran order (ghosts included) but the "
        "array passed has shape (10,*); pass an array of the layout's shape, or of rank 1.")
    assert errors["position-wrong-length"] == (
        "ECLUSE_ARGUMENT_ERROR|position of variable 'temperature': its layout has 2 dimensions "
        "but the position has 3 values; pass one offset per dimension, in the layout's order.")


def test_a_successful_call_clears_the_message(errors):
    for case in ("initialize", "valid-write", "bind", "commit", "finalize"):
        assert errors[case] == "ECLUSE_OK|", case
    assert errors["unknown-statistic"] == (
        "ECLUSE_ARGUMENT_ERROR|no statistic named 'dn.credit_waits' on this rank; known: "
        "client.dropped_allocations, client.refused_writes, client.unwanted_writes.")


def test_a_failed_client_comm_get_leaves_the_communicator(errors):
    assert errors["comm-kept"] == "-7 ECLUSE_NOT_INITIALIZED"


def test_every_call_of_ecluse_h_is_in_the_module(errors):
    assert errors["already-written"] == "T"  # ECLUSE_ALREADY_WRITTEN is public
    assert errors["has-servers"] == "0 ECLUSE_OK"
    assert errors["variable-type"] == "5 ECLUSE_OK"  # ECLUSE_TYPE_FLOAT64
    assert errors["parameter-type"] == "6 ECLUSE_OK"  # ECLUSE_TYPE_STRING
    assert errors["layout"] == '"grid" ECLUSE_OK'
    assert errors["layout-too-long"].startswith('"xx" ECLUSE_ARGUMENT_ERROR')
    assert errors["commit-other-iteration"].startswith("ECLUSE_BLOCK_NOT_FOUND|")
    assert errors["clear-earlier-iteration"] == "ECLUSE_OK|"


def test_shape_parameters_actions_and_zero_copy(errors):
    assert errors["shape"] == "type 5, 2 dimensions (12,10)"  # ECLUSE_TYPE_FLOAT64, Fortran order
    assert errors["label"] == '"heat" ECLUSE_OK'
    assert errors["small-integers"] == "-300 -5 ECLUSE_OK"  # short and char: integer(2), (1)
    assert errors["short-set"] == "7 ECLUSE_OK"
    assert errors["action"] == 'step from 0 at iteration 0 args ""'
    assert errors["iteration"] == "1"
    assert errors["alloc"] == "shape (12,10) ECLUSE_OK"


@pytest.mark.parametrize("approach", ["TP", "DC"])
def test_sections_that_are_not_contiguous_are_written_as_their_values(tmp_path, approach):
    """fortran/tests/sections.f90: interior of a 2-D array, reversed, strided, a plane of a 3-D
    array, of every layout type, over 3 iterations; bit for bit against NumPy (Fortran order:
    stored with the dimensions reversed)."""
    import h5py
    import numpy as np
    architecture, ranks = {"TP": (TP, 1),
                           "DC": ('<dedicated cores="1" nodes="0"/>'
                                  '<virtual-nodes ranks-per-node="2"/>', 2)}[approach]
    run(tmp_path, BUILD / "fortran" / "ecluse_fortran_sections", ranks, None, TP, architecture)
    u = (np.arange(1, 31, dtype=np.float64) + 0.5).reshape(6, 5, order="F")
    r = (np.arange(1, 6) / 4).astype(np.float32)
    k = 100 * np.arange(1, 9, dtype=np.int32)
    b = (np.arange(1, 13, dtype=np.int64) * 3000000000).reshape(2, 3, 2, order="F")
    byte = (np.arange(1, 7) - 3).astype(np.int8)
    a = (-np.arange(1, 13, dtype=np.int16)).reshape(3, 4, order="F")
    for iteration in range(3):
        expected = {"interior": (u + 100 * iteration)[1:5, 1:4].T, "reversed": r[::-1],
                    "every_other": k[::2], "plane": b[1, :, :].T, "bytes": byte[::2],
                    "row": a[1, :]}
        (path,) = (tmp_path / "out").glob(f"sections_It{iteration}_*.h5")
        with h5py.File(path, "r") as f:
            assert sorted(f) == sorted(expected)
            for name, values in expected.items():
                stored = f[f"{name}/P0"][...]
                assert stored.dtype == values.dtype, name
                np.testing.assert_array_equal(stored, values, err_msg=f"{name} at {iteration}")
