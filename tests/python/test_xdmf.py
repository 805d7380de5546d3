"""XDMFMode: the XDMF documents of the example, the proxy and a Fortran-ordered layout on a
rectilinear mesh, opened with VTK's XDMF reader (the library under ParaView) under TP, DC and
DN; every array VTK reads equals the HDF5 dataset h5py reads, and the temporal collection lists
every iteration written."""
import os
import pathlib
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np
import pytest

from mpirun import child_env, mpiexec

vtk = pytest.importorskip("vtk")
from vtk.util.numpy_support import vtk_to_numpy  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("ECLUSE_BUILD", ROOT / "build"))
TP = '<dedicated cores="0" nodes="0"/>'
DC = '<dedicated cores="1" nodes="0"/><virtual-nodes ranks-per-node="3"/>'
DN = '<dedicated cores="0" nodes="1"/><virtual-nodes ranks-per-node="1"/>'
XDMF = '<option key="XDMFMode">EveryIteration</option>'


def run(directory, ranks, program, xml_name, text, *args):
    (directory / xml_name).write_text(text)
    result = subprocess.run([mpiexec(), "-n", str(ranks), *map(str, program), xml_name,
                             *map(str, args)], cwd=directory, env=child_env(),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def with_xdmf(text, architecture=TP):
    """Every HDF5 store of text with XDMFMode EveryIteration, under another approach."""
    text = text.replace('<option key="FileMode">', XDMF + '<option key="FileMode">')
    return text.replace(TP, architecture)


def leaves(reader):
    """(grid name, dataset) of every uniform grid of the reader's output."""
    out = reader.GetOutputDataObject(0)
    it = out.NewTreeIterator()
    it.VisitOnlyLeavesOn()
    it.InitTraversal()
    found = []
    while not it.IsDoneWithTraversal():
        name = it.GetCurrentMetaData().Get(vtk.vtkCompositeDataSet.NAME())
        found.append((re.sub(r"\[\d+\]$", "", name), it.GetCurrentDataObject()))
        it.GoToNextItem()
    return found


def open_xdmf(path, time=None):
    reader = vtk.vtkXdmfReader()
    reader.SetFileName(str(path))
    reader.UpdateInformation()
    info = reader.GetOutputInformation(0)
    key = vtk.vtkStreamingDemandDrivenPipeline.TIME_STEPS()
    steps = list(info.Get(key)) if info.Has(key) else []
    if time is None:
        reader.Update()
    else:
        reader.UpdateTimeStep(time)
    return steps, leaves(reader)


def arrays_of(dataset):
    """{(variable, 'cell' or 'point'): values} of one grid."""
    found = {}
    for kind, data in (("cell", dataset.GetCellData()), ("point", dataset.GetPointData())):
        for i in range(data.GetNumberOfArrays()):
            found[(data.GetArrayName(i), kind)] = vtk_to_numpy(data.GetArray(i))
    return found


def dataset_in(files, name):
    """The one dataset called name among files, read with h5py."""
    hits = []
    for path in files:
        with h5py.File(path, "r") as f:
            if name in f:
                hits.append(f[name][()])
    assert len(hits) == 1, f"{name} is in {len(hits)} of {files}"
    return hits[0]


def check_iteration(directory, simulation, iteration, leaves_, constant_iteration=0):
    """Every array of every grid equals its HDF5 dataset: <var>/P<source> in this iteration's
    files (the first iteration's for constant variables), or <var> in the collective file.
    Returns the number of arrays checked."""
    checked = 0
    for grid, dataset in leaves_:
        source = re.search(r"/P(\d+)$", grid)
        for (variable, kind), values in arrays_of(dataset).items():
            assert kind == "cell", (grid, variable)  # zonal variables are Cell attributes
            it = constant_iteration if variable in ("y",) else iteration
            files = sorted(directory.glob(f"{simulation}_It{it}*.h5"))
            name = f"{variable}/P{source.group(1)}" if source else variable
            expected = dataset_in(files, name)
            assert np.array_equal(values, expected.ravel()), (grid, variable, iteration)
            checked += 1
    return checked


@pytest.mark.parametrize("architecture,ranks,clients", [(TP, 2, 2), (DC, 3, 2), (DN, 3, 2)],
                         ids=["tp", "dc", "dn"])
def test_example_opens_in_vtk_with_the_hdf5_values(tmp_path, architecture, ranks, clients):
    text = with_xdmf((ROOT / "examples" / "simulation.xml").read_text(), architecture)
    program = [BUILD / "examples" / "ecluse_example_simulation"]
    result = run(tmp_path, ranks, program, "simulation.xml", text, 3)
    assert f"heat: 3 iterations on {clients} ranks written" in result.stdout
    per_process, collective = tmp_path / "out" / "per-process", tmp_path / "out" / "collective"
    for directory, per_iteration in ((per_process, 3 * clients), (collective, 1)):
        steps, _ = open_xdmf(directory / "heat.xmf")
        assert steps == [0.0, 1.0, 2.0]
        for it in range(3):
            _, grids = open_xdmf(directory / "heat.xmf", float(it))
            # temperature and diagnostics/stats per client, and y (written at iteration 0)
            assert check_iteration(directory, "heat", it, grids) == per_iteration
            _, alone = open_xdmf(directory / f"heat_It{it}.xmf")
            assert check_iteration(directory, "heat", it, alone) == per_iteration
    _, grids = open_xdmf(collective / "heat_It1.xmf")
    (name, field), = grids
    # 48 x 64 cells (x fastest), one thick: in the XY plane, as a variable on a 2-D mesh
    # (2DRectMesh) is; described as 2-D it was (1, 49, 65), in the YZ plane
    assert name == "temperature" and field.GetDimensions() == (49, 65, 2)
    assert field.GetBounds() == (0.0, 48.0, 0.0, 64.0, 0.0, 1.0)
    assert not list(tmp_path.rglob("*.part"))


def test_moved_output_still_opens(tmp_path):
    text = with_xdmf((ROOT / "examples" / "simulation.xml").read_text())
    (tmp_path / "run").mkdir()
    run(tmp_path / "run", 2, [BUILD / "examples" / "ecluse_example_simulation"],
        "simulation.xml", text, 2)
    shutil.move(tmp_path / "run" / "out", tmp_path / "moved")
    steps, grids = open_xdmf(tmp_path / "moved" / "per-process" / "heat.xmf", 1.0)
    assert steps == [0.0, 1.0]
    assert check_iteration(tmp_path / "moved" / "per-process", "heat", 1, grids) == 6


@pytest.mark.parametrize("approach,ranks", [("tp", 4), ("dc", 3)])
def test_proxy_fields_open_in_vtk(tmp_path, approach, ranks):
    config = f"proxy-{approach}.xml"
    text = with_xdmf((ROOT / "apps" / "proxy" / config).read_text())
    program = [BUILD / "apps" / "proxy" / "ecluse_proxy", "--config"]
    run(tmp_path, ranks, program, config, text, "--local", "6x5x4", "--iterations", "3",
        "--output-every", "1", "--variables", "temperature,u,qv")
    out = tmp_path / "out" / "proxy"
    steps, _ = open_xdmf(out / "proxy.xmf")
    written = sorted(int(re.search(r"_It(\d+)", p.name).group(1)) for p in out.glob("*.h5"))
    assert len(written) == 3 and steps == [float(it) for it in written]
    for it in written:
        _, grids = open_xdmf(out / "proxy.xmf", float(it))
        assert sorted(name for name, _ in grids) == ["qv", "temperature", "u"]
        assert check_iteration(out, "proxy", it, grids) == 3


FORTRAN_XML = """<?xml version="1.0"?>
<simulation name="ftest" language="fortran" xmlns="urn:ecluse:config:1">
  <architecture>
    <domains count="1"/>
    <dedicated cores="0" nodes="0"/>
    <buffer size="16MiB"/>
  </architecture>
  <data>
    <parameter name="NX" type="int" value="6"/>
    <parameter name="NXL" type="int" value="6"/>
    <parameter name="NY" type="int" value="4"/>
    <parameter name="NZ" type="int" value="3"/>
    <layout name="cells" type="double" dimensions="NXL,NY,NZ" global="NX,NY,NZ"/>
    <layout name="nodes" type="float" dimensions="NXL+1,NY+1,NZ+1"/>
    <layout name="xs" type="double" dimensions="NXL+1"/>
    <layout name="ys" type="double" dimensions="NY+1"/>
    <layout name="zs" type="double" dimensions="NZ+1"/>
    <mesh name="grid" type="rectilinear" topology="3">
      <coord name="x"/><coord name="y"/><coord name="z"/>
    </mesh>
    <variable name="x" layout="xs" time-varying="false" store="files"/>
    <variable name="y" layout="ys" time-varying="false" store="files"/>
    <variable name="z" layout="zs" time-varying="false" store="files"/>
    <variable name="theta" layout="cells" mesh="grid" store="files,shared"/>
    <variable name="phi" layout="nodes" mesh="grid" centering="nodal" store="files"/>
  </data>
  <storage>
    <store name="files" type="HDF5">
      <option key="FileMode">FilePerCore</option>
      <option key="FilesPath">out/files</option>
    </store>
    <store name="shared" type="HDF5">
      <option key="FileMode">Collective</option>
      <option key="FilesPath">out/shared</option>
    </store>
  </storage>
</simulation>
"""

FORTRAN_WRITER = """import sys
import numpy as np
from mpi4py import MPI
import ecluse

with ecluse.Session(sys.argv[1], MPI.COMM_WORLD) as s:
    if s.is_client:
        rank, size = s.client_comm.Get_rank(), s.client_comm.Get_size()
        nx = s.parameter_get("NX") // size
        ny, nz = s.parameter_get("NY"), s.parameter_get("NZ")
        s.parameter_set("NXL", nx)
        x0 = rank * nx
        s.set_position("theta", [x0, 0, 0])  # Fortran order: x first
        s.write("x", 0.5 * np.arange(x0, x0 + nx + 1, dtype="f8"))
        s.write("y", 2.0 + np.arange(ny + 1, dtype="f8"))
        s.write("z", -1.0 - np.arange(nz + 1, dtype="f8"))
        for it in range(int(sys.argv[2])):
            k, j, i = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(x0, x0 + nx),
                                  indexing="ij")  # C-order shape (NZ, NY, NXL): x fastest
            s.write("theta", (1000.0 * it + 100 * k + 10 * j + i))
            k, j, i = np.meshgrid(np.arange(nz + 1), np.arange(ny + 1),
                                  np.arange(x0, x0 + nx + 1), indexing="ij")
            s.write("phi", (1000.0 * it + 100 * k + 10 * j + i).astype("f4"))
            s.end_iteration()
"""


def fortran_value(it, i, j, k):
    return 1000.0 * it + 100 * k + 10 * j + i


@pytest.mark.parametrize("architecture,ranks,clients", [(TP, 2, 2), (DC, 3, 2)],
                         ids=["tp", "dc"])
def test_fortran_layout_on_a_rectilinear_mesh_has_the_right_axes(tmp_path, architecture, ranks,
                                                                  clients):
    (tmp_path / "writer.py").write_text(FORTRAN_WRITER)
    result = run(tmp_path, ranks, [sys.executable, "writer.py"], "ftest.xml",
                 with_xdmf(FORTRAN_XML, architecture), 2)
    files = tmp_path / "out" / "files"
    steps, _ = open_xdmf(files / "ftest.xmf")
    assert steps == [0.0, 1.0]
    _, grids = open_xdmf(files / "ftest.xmf", 1.0)
    assert sorted(name for name, _ in grids if name.startswith("grid")) == [
        f"grid/P{s}" for s in range(clients)]
    nx = 6 // clients
    for name, grid in grids:
        if not name.startswith("grid/"):
            continue
        source = int(name.split("/P")[1])
        x0 = source * nx
        assert grid.GetDimensions() == (nx + 1, 5, 4)  # x, y, z points
        assert np.array_equal(vtk_to_numpy(grid.GetXCoordinates()),
                              0.5 * np.arange(x0, x0 + nx + 1))
        assert np.array_equal(vtk_to_numpy(grid.GetYCoordinates()), 2.0 + np.arange(5))
        assert np.array_equal(vtk_to_numpy(grid.GetZCoordinates()), -1.0 - np.arange(4))
        theta = vtk_to_numpy(grid.GetCellData().GetArray("theta"))
        phi = vtk_to_numpy(grid.GetPointData().GetArray("phi"))
        for cell, (i, j, k) in ((0, (0, 0, 0)), (1, (1, 0, 0)), (nx, (0, 1, 0)),
                                (nx * 4 * 3 - 1, (nx - 1, 3, 2))):
            assert theta[cell] == fortran_value(1, x0 + i, j, k), (name, cell)
        last = (nx + 1) * 5 * 4 - 1
        assert phi[last] == fortran_value(1, x0 + nx, 4, 3)
        assert phi[1] == fortran_value(1, x0 + 1, 0, 0)
    assert check_iteration_mesh(files, grids, 1) == 2 * clients
    # the collective file has theta but not the mesh's coordinates: theta on its layout
    shared = tmp_path / "out" / "shared"
    _, grids = open_xdmf(shared / "ftest.xmf", 0.0)
    (name, theta), = grids
    assert name == "theta" and theta.GetDimensions() == (7, 5, 4)
    with h5py.File(shared / "ftest_It0.h5", "r") as f:
        expected = f["theta"][()]
    assert expected.shape == (3, 4, 6)
    assert np.array_equal(vtk_to_numpy(theta.GetCellData().GetArray("theta")), expected.ravel())
    assert expected[2, 3, 5] == fortran_value(0, 5, 3, 2)
    assert result.stderr.count("variable 'theta' on mesh 'grid': coordinate 'x' has no 1-D "
                               "dataset in this store's output") == 1


def check_iteration_mesh(directory, grids, iteration):
    """theta and phi of each mesh grid equal their per-process datasets."""
    checked = 0
    for name, grid in grids:
        if not name.startswith("grid/"):
            continue
        source = name.split("/P")[1]
        files = sorted(directory.glob(f"ftest_It{iteration}_*.h5"))
        for variable, data in (("theta", grid.GetCellData()), ("phi", grid.GetPointData())):
            expected = dataset_in(files, f"{variable}/P{source}")
            assert np.array_equal(vtk_to_numpy(data.GetArray(variable)), expected.ravel())
            checked += 1
    return checked


def test_file_per_node_first_iteration_only(tmp_path):
    text = (ROOT / "examples" / "simulation.xml").read_text()
    text = text.replace('<option key="FileMode">FilePerCore</option>',
                        '<option key="FileMode">FilePerNode</option>'
                        '<option key="XDMFMode">FirstIteration</option>')
    text = text.replace(TP, TP + '<virtual-nodes ranks-per-node="2"/>')
    run(tmp_path, 4, [BUILD / "examples" / "ecluse_example_simulation"], "simulation.xml", text, 3)
    out = tmp_path / "out" / "per-process"
    assert sorted(p.name for p in out.glob("*.h5"))[:2] == ["heat_It0_Node0.h5", "heat_It0_Node1.h5"]
    assert sorted(p.name for p in out.glob("*.xmf")) == ["heat.xmf", "heat_It0.xmf"]
    steps, grids = open_xdmf(out / "heat.xmf", 0.0)
    assert steps == [0.0]
    assert check_iteration(out, "heat", 0, grids) == 3 * 4
    assert not list((tmp_path / "out" / "collective").glob("*.xmf"))
