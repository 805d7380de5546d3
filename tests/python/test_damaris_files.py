"""Damaris 1.x "same files": a configuration in Damaris's namespace run under time partitioning,
dedicated cores and dedicated nodes, read back the way a Damaris user's h5py post-processing
reads Damaris's output (<FilesPath><simulation>_It<it>_Pr<server>.h5 with var/P<source>[/B<b>],
<simulation>_It<it>.h5 with one dataset per variable at its global extent), bit for bit. Also
the store semantics of Damaris's namespace: no store= means no store, store lists with any
separator, a store frequency, a disabled store, constant variables written once, and where
<placement mask> puts the dedicated core."""
import json
import os
import pathlib
import subprocess
import sys

import h5py
import numpy as np
import pytest

from mpirun import child_env, mpiexec

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("ECLUSE_BUILD", ROOT / "build"))

pytestmark = pytest.mark.skipif(
    not list((BUILD / "python" / "ecluse").glob("_native*.so")),
    reason=f"the native module was not built in {BUILD} (needs nanobind in the venv)")

CONFIG = """<?xml version="1.0"?>
<simulation name="same" language="c" xmlns="http://damaris.gforge.inria.fr/damaris/model">
  <architecture>
    <domains count="{domains}"/>
    <dedicated cores="{cores}" nodes="{nodes}"/>
    <placement mask="{mask}"/>
    <buffer name="same-buffer" size="4194304"/>
    <queue name="same-queue" size="100"/>
  </architecture>
  <data>
    <parameter name="W" type="int" value="4"/>
    <parameter name="rows" type="int" value="{rows}" comment="2 rows per block"/>
    <layout name="cells" type="double" dimensions="2,W" global="rows,W"/>
    <layout name="ids" type="int" dimensions="2,W" global="rows,W"/>
    <group name="fluid">
      <variable name="rho" layout="cells" store="perCore;whole"/>
    </group>
    <variable name="coord" layout="ids" time-varying="false" store="perCore whole"/>
    <variable name="scratch" layout="cells"/>
    <variable name="sparse" layout="cells" store="every2"/>
    <variable name="hidden" layout="cells" store="off"/>
  </data>
  <storage>
    <store name="perCore" type="HDF5">
      <option key="FileMode">FilePerCore</option>
      <option key="FilesPath">out/</option>
    </store>
    <store name="whole" type="HDF5">
      <option key="FileMode">Collective</option>
      <option key="XDMFMode">NoIteration</option>
      <option key="FilesPath">out/</option>
    </store>
    <store name="every2" type="HDF5" frequency="2">
      <option key="FileMode">FilePerCore</option>
      <option key="FilesPath">every2/</option>
      <option key="Compression">none</option>
    </store>
    <store name="off" type="HDF5" enabled="false">
      <option key="FilesPath">off/</option>
    </store>
  </storage>
  <log FileName="log" RotationSize="5" LogFormat="[%TimeStamp%]: %Message%" LogLevel="warning"/>
</simulation>
"""

ITERATIONS = 3

SCRIPT = """
import json
import numpy as np
from mpi4py import MPI
import ecluse
DOMAINS, ITERATIONS = {domains}, {iterations}
def value(variable, iteration, source, block):
    return 1000.0 * variable + 100.0 * iteration + 10.0 * source + block + 0.5
with ecluse.Session("same.xml") as s:
    client = s.is_client
    if client:
        source = s.client_comm.Get_rank()
        for it in range(ITERATIONS):
            for b in range(DOMAINS):
                row = 2 * (source * DOMAINS + b)
                for v, name in enumerate(["fluid/rho", "scratch", "sparse", "hidden"]):
                    s.set_position(name, (row, 0), b)
                    s.write(name, np.full((2, 4), value(v, it, source, b)), b)
                s.set_position("coord", (row, 0), b)
                s.write("coord", np.full((2, 4), it * 100 + source * 10 + b, dtype=np.int32), b)
            s.end_iteration()
        s.stop()
    print("RESULT " + json.dumps(dict(rank=MPI.COMM_WORLD.Get_rank(), client=client)),
          flush=True)
"""


def value(variable, iteration, source, block):
    return 1000.0 * variable + 100.0 * iteration + 10.0 * source + block + 0.5


def run(tmp_path, ranks, domains=1, cores=0, nodes=0, mask="", ranks_per_node=None):
    clients = ranks - (cores * (ranks // (ranks_per_node or ranks)) if cores else 0)
    if nodes:
        clients = ranks - nodes * ranks_per_node
    (tmp_path / "same.xml").write_text(
        CONFIG.format(domains=domains, cores=cores, nodes=nodes, mask=mask,
                      rows=2 * clients * domains))
    (tmp_path / "script.py").write_text(SCRIPT.format(domains=domains, iterations=ITERATIONS))
    env = child_env()
    if ranks_per_node:
        env["ECLUSE_RANKS_PER_NODE"] = str(ranks_per_node)
    result = subprocess.run([mpiexec(), "-n", str(ranks), sys.executable, "script.py"],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    decoder = json.JSONDecoder()
    found = [decoder.raw_decode(p)[0] for p in result.stdout.split("RESULT ")[1:]]
    return clients, {r["rank"]: r["client"] for r in found}


def block_name(variable, source, block, domains):
    """Damaris's dataset name in a FilePerCore file."""
    name = f"{variable}/P{source}"
    return name + f"/B{block}" if domains > 1 else name


def check_per_core(directory, servers, clients, domains, variables, iterations):
    """Every file <simulation>_It<it>_Pr<server>.h5 holds, between them, every block of every
    variable (and nothing else): the Damaris user's loop over servers finds each block once."""
    names = sorted(p.name for p in directory.glob("*_Pr*.h5"))
    assert names == sorted(f"same_It{it}_Pr{p}.h5" for it in iterations for p in servers)
    for it in iterations:
        found = {}
        for p in servers:
            with h5py.File(directory / f"same_It{it}_Pr{p}.h5", "r") as f:
                f.visititems(lambda name, obj: found.__setitem__(name, obj[()])
                             if isinstance(obj, h5py.Dataset) else None)
        expected = {}
        for source in range(clients):
            for b in range(domains):
                for v, name in variables(it):
                    expected[block_name(name, source, b, domains)] = (v, source, b)
        assert sorted(found) == sorted(expected), (it, sorted(found))
        for name, (v, source, b) in expected.items():
            want = (np.full((2, 4), it * 100 + source * 10 + b, dtype=np.int32) if v is None
                    else np.full((2, 4), value(v, it, source, b)))
            assert found[name].dtype == want.dtype and found[name].tobytes() == want.tobytes()


def check_collective(directory, clients, domains):
    """<simulation>_It<it>.h5: one dataset per variable at its global extent, every block at
    its position; the constant variable only in the first iteration."""
    for it in range(ITERATIONS):
        with h5py.File(directory / f"same_It{it}.h5", "r") as f:
            datasets = []
            f.visititems(lambda name, obj: datasets.append(name)
                         if isinstance(obj, h5py.Dataset) else None)
            assert sorted(datasets) == (["coord", "fluid/rho"] if it == 0 else ["fluid/rho"])
            rho = f["fluid/rho"][()]
            assert rho.shape == (2 * clients * domains, 4) and rho.dtype == np.float64
            for source in range(clients):
                for b in range(domains):
                    row = 2 * (source * domains + b)
                    assert (rho[row:row + 2] == value(0, it, source, b)).all()
                    if it == 0:
                        assert (f["coord"][row:row + 2] == source * 10 + b).all()


def check_run(tmp_path, servers, clients, domains):
    def stored(it):
        return [(0, "fluid/rho")] + ([(None, "coord")] if it == 0 else [])
    check_per_core(tmp_path / "out", servers, clients, domains, stored, range(ITERATIONS))
    check_collective(tmp_path / "out", clients, domains)
    # frequency="2": iterations 0 and 2 only; "scratch" (no store=) and "hidden" (a disabled
    # store) are written nowhere.
    check_per_core(tmp_path / "every2", servers, clients, domains, lambda it: [(2, "sparse")],
                   [0, 2])
    assert not (tmp_path / "off").exists()


def test_time_partitioning_writes_damaris_files(tmp_path):
    clients, roles = run(tmp_path, 2)
    assert roles == {0: True, 1: True}
    check_run(tmp_path, servers=[0, 1], clients=clients, domains=1)


def test_dedicated_core_placed_by_mask_writes_damaris_files(tmp_path):
    # One 4-rank node, mask "1000": local rank 0 is the dedicated core, 1-3 its clients.
    clients, roles = run(tmp_path, 4, domains=2, cores=1, mask="1000", ranks_per_node=4)
    assert roles == {0: False, 1: True, 2: True, 3: True}
    check_run(tmp_path, servers=[0], clients=clients, domains=2)


def test_dedicated_node_writes_damaris_files(tmp_path):
    # Two 2-rank nodes, the last one dedicated: each of its ranks serves one client.
    clients, roles = run(tmp_path, 4, nodes=1, ranks_per_node=2)
    assert roles == {0: True, 1: True, 2: False, 3: False}
    check_run(tmp_path, servers=[0, 1], clients=clients, domains=1)
