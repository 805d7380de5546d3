"""<pyscript>s on the writers (docs/python-insitu.md): the example simulation (C, so the
interpreter is embedded, not inherited) under TP, DC and DN; every block of every iteration is
seen exactly once; a failing script prints its traceback with the iteration and the HDF5 files
stay complete; with a local Dask scheduler, each iteration's Dask sum over 2 servers equals the
NumPy sum of every block written."""
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

import pytest

from mpirun import BUILD, ROOT, child_env, mpiexec

sys.path.insert(0, str(ROOT / "examples"))
import read_output  # noqa: E402

pytestmark = pytest.mark.skipif(not list(BUILD.glob("libecluse_python.so*")),
                                reason="libecluse_python not built (no Python embedding library)")

NX, NY, ITERATIONS = 64, 48, 4

# ranks, the <dedicated> line (and virtual nodes), clients, writers
APPROACHES = {
    "tp": (2, '<dedicated cores="0" nodes="0"/>', 2, 2),
    "dc": (6, '<dedicated cores="1" nodes="0"/><virtual-nodes ranks-per-node="3"/>', 4, 2),
    "dn": (6, '<dedicated cores="0" nodes="1"/><virtual-nodes ranks-per-node="2"/>', 4, 2),
}

COUNT = '''
import json
def main(DD):
    env = DD["damaris_env"]
    it = DD["iteration_data"]
    from ecluse import insitu
    rank = insitu.server_comm().Get_rank()
    t = it.get("temperature", {"numpy_data": {}, "sort_data": []})
    offsets = {key: o for _, key, o in t["sort_data"]}
    blocks = {key: [float(insitu.interior(DD, "temperature", key).sum()), offsets[key],
                    list(a.shape), a.flags.writeable]
              for key, a in t["numpy_data"].items()}
    with open(f"count-{rank}.jsonl", "a") as f:
        f.write(json.dumps({"iteration": it["iteration"], "blocks": blocks,
                            "variables": sorted(k for k in it if k != "iteration"),
                            "env": env, "dask": DD["dask_env"],
                            "clients": insitu.known_clients()}) + "\\n")
'''

EVERY_OTHER = '''
from ecluse import insitu
def main(DD):
    with open(f"other-{insitu.server_comm().Get_rank()}.txt", "a") as f:
        f.write(f"{DD['iteration_data']['iteration']}\\n")
'''

FAILING = '''
def main(DD):
    if DD["iteration_data"]["iteration"] == 1:
        return 1 / 0
'''

DASK_SUM = '''
import json
import numpy as np
from damaris4py.server import getservercomm
from damaris4py.dask import damaris_dask
from ecluse import insitu
def main(DD):
    comm = getservercomm()
    it = damaris_dask.return_iteration(DD)
    mine = sum(float(a.sum()) for _, _, a in insitu.blocks(DD, "temperature"))
    numpy_sum = comm.reduce(mine, root=0)
    x = damaris_dask.return_dask_array(DD, insitu.dask_client(DD), "temperature", comm,
                                       print_array_component=True)
    if comm.Get_rank() == 0:
        with open("dask.jsonl", "a") as f:
            f.write(json.dumps({"iteration": it, "dask": float(x.sum().compute()),
                                "numpy": numpy_sum, "shape": list(x.shape),
                                "workers": DD["dask_env"]["dask_nworkers"],
                                "magic": insitu.magic_number(DD)}) + "\\n")
'''


def expected_sum(iteration):
    """Sum of the example's temperature over the global NX x NY field."""
    i_sum, j_sum = NX * (NX - 1) // 2, NY * (NY - 1) // 2
    return iteration * 1e6 * NX * NY + 1e3 * i_sum * NY + j_sum * NX


def expected_block_sum(iteration, x0, rows):
    i_sum = sum(range(x0, x0 + rows))
    return iteration * 1e6 * rows * NY + 1e3 * i_sum * NY + NY * (NY - 1) // 2 * rows


def config(approach, scripts, script_attr="script=\"count\""):
    ranks, dedicated, _, _ = APPROACHES[approach]
    text = (ROOT / "examples" / "simulation.xml").read_text()
    text = text.replace('<dedicated cores="0" nodes="0"/>', dedicated)
    text = text.replace('store="files,shared"/>', f'store="files,shared" {script_attr}/>')
    return text.replace("</storage>", "</storage>\n  <scripts>\n" + scripts + "\n  </scripts>")


def run(tmp_path, approach, scripts, files, script_attr='script="count"', timeout=120, env=None):
    return run_xml(tmp_path, approach, config(approach, scripts, script_attr), files, timeout, env)


def run_xml(tmp_path, approach, xml, files, timeout=120, env=None):
    """The C example on the approach's ranks with configuration `xml` and the script files."""
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "simulation.xml").write_text(xml)
    return subprocess.run([mpiexec(), "-n", str(APPROACHES[approach][0]),
                           str(BUILD / "examples" / "ecluse_example_simulation"), "simulation.xml",
                           str(ITERATIONS)], cwd=tmp_path, env=dict(child_env(), **(env or {})),
                          capture_output=True, text=True, timeout=timeout)


def records(tmp_path, pattern):
    return [json.loads(line) for path in sorted(tmp_path.glob(pattern))
            for line in path.read_text().splitlines()]


@pytest.mark.parametrize("approach", ["tp", "dc", "dn"])
def test_every_block_of_every_iteration_once(tmp_path, approach):
    scripts = ('    <pyscript name="count" file="count.py" language="python" frequency="1"/>\n'
               '    <pyscript name="other" file="other.py" frequency="2"/>')
    result = run(tmp_path, approach, scripts, {"count.py": COUNT, "other.py": EVERY_OTHER})
    assert result.returncode == 0, result.stderr
    _, _, clients, writers = APPROACHES[approach]
    seen = records(tmp_path, "count-*.jsonl")
    assert len(seen) == ITERATIONS * writers  # main(DD) once per iteration on every writer
    blocks = [(r["iteration"], key) for r in seen for key in r["blocks"]]
    assert sorted(blocks) == sorted((i, f"P{c}_B0") for i in range(ITERATIONS)
                                    for c in range(clients))
    rows = [NX // clients + (c < NX % clients) for c in range(clients)]
    for r in seen:
        assert r["variables"] == ["temperature"]  # only the variables naming the script
        for key, (total, offsets, shape, writeable) in r["blocks"].items():
            c = int(key[1:].split("_")[0])
            x0 = sum(rows[:c])
            assert offsets == [x0, 0] and shape == [rows[c] + 2, NY + 2] and not writeable
            assert total == expected_block_sum(r["iteration"], x0, rows[c])
        env = r["env"]
        assert env["is_dedicated_core"] == (approach == "dc")
        assert env["is_dedicated_node"] == (approach == "dn")
        assert env["simulation_name"] == "heat"
        assert r["dask"]["dask_scheduler_file"] == ""
    assert len({r["env"]["simulation_magic_number"] for r in seen}) == 1
    assert sorted(c for r in seen if r["iteration"] == ITERATIONS - 1
                  for c in r["clients"]) == list(range(clients))
    other = sorted(int(x) for p in tmp_path.glob("other-*.txt") for x in p.read_text().split())
    assert other == sorted(list(range(0, ITERATIONS, 2)) * writers)
    assert read_output.check_per_process(tmp_path / "out", ITERATIONS, clients) > 0


@pytest.mark.parametrize("approach", ["dc", "dn"])
def test_failing_script_prints_its_traceback_and_the_files_are_complete(tmp_path, approach):
    result = run(tmp_path, approach, '<pyscript name="bad" file="bad.py"/>',
                 {"bad.py": FAILING}, script_attr='script="bad"')
    assert result.returncode == 0, result.stderr
    _, _, clients, writers = APPROACHES[approach]
    # labelled with the MPI rank, as Ecluse's own line for the same failure; no claim that the
    # data is stored (a script's variables need not have a store)
    ranks = logged_ranks(result.stderr, "error: pyscript 'bad' failed at iteration 1: "
                                        "ZeroDivisionError: division by zero")
    assert len(ranks) == writers and ranks != list(range(writers))
    for rank in ranks:
        assert result.stderr.count(
            f"[ecluse {rank}] pyscript 'bad' (bad.py) failed at iteration 1; the run goes on and "
            "calls it again at its next iteration:\nTraceback (most recent call last):") == 1
    assert "data is stored:" not in result.stderr
    assert result.stderr.count("ZeroDivisionError: division by zero") >= writers
    assert "failed at iteration 0" not in result.stderr
    out = tmp_path / "out"
    assert read_output.check_per_process(out, ITERATIONS, clients) == ITERATIONS * writers
    assert read_output.check_collective(out, ITERATIONS, clients) == ITERATIONS
    # Counted in the report and said in the summary: one failure per writer (iteration 1).
    report = json.loads((tmp_path / "heat-report.json").read_text())
    assert report["statistics"]["insitu.failures"] == writers
    assert (f"  in situ: {writers} run(s) of in-situ work (<pyscript>, plugin actions, signal "
            "actions) failed: the data was stored, their results are missing for those "
            "iterations (the log and stderr say which, with the error)\n") in result.stdout


def logged_ranks(stderr, text):
    """The N of Ecluse's log lines "[ecluse N] <text>", sorted."""
    return sorted(int(n) for n in re.findall(r"^\[ecluse (\d+)\] " + re.escape(text), stderr,
                                             flags=re.MULTILINE))


def test_missing_script_file_is_an_error_at_initialize(tmp_path):
    result = run(tmp_path, "dc", '<pyscript name="count" file="absent.py"/>', {})
    assert result.returncode != 0
    assert ("initialize failed (ECLUSE_CONFIG_ERROR): simulation.xml:36:24: cannot read the "
            "script file 'absent.py' of <pyscript name=\"count\">: No such file or directory (a "
            "relative path is taken from the working directory); fix file= or the file's "
            "permissions.") in result.stderr


def test_python_library_that_cannot_load_is_an_error_at_initialize(tmp_path):
    result = run(tmp_path, "dn", '<pyscript name="count" file="count.py"/>', {"count.py": COUNT},
                 env={"ECLUSE_PYTHON_LIBRARY": "/nonexistent/libecluse_python.so"})
    assert result.returncode != 0
    assert ("initialize failed (ECLUSE_INIT_ERROR): <scripts>: cannot load the Python library "
            "'/nonexistent/libecluse_python.so': /nonexistent/libecluse_python.so: cannot open "
            "shared object file: No such file or directory. Build Ecluse with Python's embedding "
            "library (Debian: libpython3-dev) or set ECLUSE_PYTHON_LIBRARY to "
            "libecluse_python.so.") in result.stderr


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    """One local Dask scheduler for the module (its start-up is slow)."""
    directory = tmp_path_factory.mktemp("dask")
    path = directory / "scheduler.json"
    dask = pathlib.Path(sys.executable).parent / "dask"
    process = subprocess.Popen([str(dask), "scheduler", "--scheduler-file", str(path),
                                "--no-dashboard", "--port", "0", "--host", "127.0.0.1"],
                               cwd=directory, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    yield path
    process.terminate()
    process.wait(30)


@pytest.mark.parametrize("approach", ["dc", "dn"])
def test_dask_sum_over_two_servers_equals_the_numpy_sum(tmp_path, approach, scheduler):
    scripts = (f'<pyscript name="count" file="sum.py" scheduler-file="{scheduler}" nthreads="1" '
               'keep-workers="no" timeout="60"/>')
    result = run(tmp_path, approach, scripts, {"sum.py": DASK_SUM}, timeout=180)
    assert result.returncode == 0, result.stderr
    # a run of the script that failed says why on stderr (the C example still exits 0)
    assert "failed at iteration" not in result.stderr, result.stderr[-6000:]
    sums = records(tmp_path, "dask.jsonl")
    assert [s["iteration"] for s in sums] == list(range(ITERATIONS)), result.stderr[-6000:]
    for s in sums:
        assert s["dask"] == s["numpy"] == expected_sum(s["iteration"])
        assert s["shape"] == [NX, NY] and s["workers"] == 2
        # print_array_component: Damaris's layout text (server 0 has clients 0, 1; server 1
        # has 2, 3; the slabs are stacked along the first axis)
        blocks = [f"client.datasets['S{c // 2}_I{s['iteration']}_{s['magic']}']['P{c}_B0']"
                  for c in range(4)]
        assert (f"Damaris variable:  temperature :\n data = [[" + "]\n,[".join(blocks) +
                "]]\n") in result.stdout
    from distributed import Client
    with Client(scheduler_file=str(scheduler), timeout="10s") as client:
        deadline = time.monotonic() + 20
        while client.scheduler_info()["workers"] and time.monotonic() < deadline:
            time.sleep(0.2)
        assert client.scheduler_info()["workers"] == {}, "workers are removed at the end"


def test_keep_workers_leaves_them_attached_to_the_scheduler(tmp_path, scheduler):
    scripts = (f'<pyscript name="count" file="count.py" scheduler-file="{scheduler}" '
               'keep-workers="yes" timeout="60"/>')
    result = run(tmp_path, "dc", scripts, {"count.py": COUNT})
    assert result.returncode == 0, result.stderr
    dask_env = records(tmp_path, "count-*.jsonl")[0]["dask"]
    names = [f"{dask_env['dask_workers_name']}-{r}" for r in range(2)]
    logs = [pathlib.Path(tempfile.gettempdir()) / f"{name}.log" for name in names]
    from distributed import Client
    try:
        assert all(log.exists() for log in logs)  # the running workers still write them
        with Client(scheduler_file=str(scheduler), timeout="10s") as client:
            assert sorted(w["name"] for w in client.scheduler_info()["workers"].values()) == names
            client.retire_workers(close_workers=True)
            deadline = time.monotonic() + 20
            while client.scheduler_info()["workers"] and time.monotonic() < deadline:
                time.sleep(0.2)
            assert client.scheduler_info()["workers"] == {}
    finally:
        for log in logs:
            log.unlink(missing_ok=True)


def test_examples_statistics_png_and_dask_sum(tmp_path, scheduler):
    """examples/python/insitu as its XML says, with the module's scheduler."""
    example = ROOT / "examples" / "python" / "insitu"
    for name in ("stats.py", "slice_png.py", "dask_sum.py"):
        (tmp_path / name).write_text((example / name).read_text())
    (tmp_path / "insitu.xml").write_text((example / "insitu.xml").read_text().replace(
        'scheduler-file="scheduler.json"', f'scheduler-file="{scheduler}"'))
    result = subprocess.run([mpiexec(), "-n", "6", str(BUILD / "examples" /
                                                       "ecluse_example_simulation"),
                             "insitu.xml", str(ITERATIONS)], cwd=tmp_path, env=child_env(),
                            capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr
    for i in range(ITERATIONS):
        assert (f"dask_sum: iteration {i} shape ({NX}, {NY}) sum {expected_sum(i):.17g} "
                f"simulation {expected_sum(i):.17g} ok") in result.stdout
    rows = [line.split(",") for line in (tmp_path / "stats.csv").read_text().splitlines()]
    temperature = [r for r in rows if r[1] == "temperature"]
    assert [int(r[0]) for r in temperature] == list(range(ITERATIONS))
    for r in temperature:
        i = int(r[0])
        assert int(r[2]) == NX * NY
        assert float(r[3]) == i * 1e6 and float(r[4]) == i * 1e6 + (NX - 1) * 1e3 + NY - 1
        assert float(r[5]) == expected_sum(i) / (NX * NY)
    import matplotlib.image
    pngs = sorted(p.name for p in tmp_path.glob("temperature-*.png"))
    assert pngs == [f"temperature-{i}.png" for i in range(0, ITERATIONS, 2)]
    assert matplotlib.image.imread(tmp_path / pngs[0]).shape[:2] == (320, 400)


DAMARIS_NAMES = '''
import json
from damaris4py.damaris4py import getservercomm, listknownclients, magicnumber_string
from damaris4py import server
from damaris4py.dask import damaris_dask
from mpi4py import MPI
def main(DD):
    comm = getservercomm()
    damaris_comm = server.getdamariscomm()
    # collective over the servers only: hangs if it is not the servers' communicator
    total = damaris_comm.allreduce(1) if damaris_comm.Get_size() == comm.Get_size() else None
    clients = listknownclients()
    block = damaris_dask.return_numpy_array(DD, "temperature", client_rank=clients[0])
    try:
        server.getclientcomm()
        client_comm = "given"
    except RuntimeError as error:
        client_comm = str(error)
    with open(f"names-{comm.Get_rank()}.jsonl", "a") as f:
        f.write(json.dumps({
            "magic": magicnumber_string() == DD["damaris_env"]["simulation_magic_number"],
            "scheduler": damaris_dask.return_scheduler_filename(DD),
            "block": list(block.shape) if block is not None else None,
            "missing": damaris_dask.return_numpy_array(DD, "temperature", client_rank=99),
            "empty": DD["iteration_data"]["pressure"]["numpy_data"],
            "server": [server.isserver(), server.isclient(), server.isdedicatedcore(),
                       server.isdedicatednode(), server.clientspernode(),
                       server.serverspernode(), server.numberofnodes()],
            "client_comm": client_comm,
            "damaris_comm": [damaris_comm.Get_size(), MPI.Comm.Compare(damaris_comm, comm) in
                             (MPI.IDENT, MPI.CONGRUENT), total,
                             server.getglobalcomm().Get_size()]}) + "\\n")
'''


def test_damaris_script_names_and_an_entry_for_every_variable_of_the_script(tmp_path):
    """The names Damaris's own example scripts import (damaris4py.damaris4py,
    magicnumber_string, return_numpy_array, return_scheduler_filename, the server module's
    topology functions); a variable of the script that no client wrote this iteration has an
    entry with no blocks, as in Damaris."""
    scripts = '<pyscript name="count" file="names.py"/>'
    text = config("dc", scripts).replace(
        "</data>", '<variable name="pressure" layout="slab" script="count" store="#"/></data>')
    result = run_xml(tmp_path, "dc", text, {"names.py": DAMARIS_NAMES})
    assert result.returncode == 0, result.stderr
    lines = records(tmp_path, "names-*.jsonl")
    assert len(lines) == 2 * ITERATIONS
    for line in lines:
        assert line["magic"] is True and line["scheduler"] == ""
        assert line["block"] is not None and len(line["block"]) == 2
        assert line["missing"] is None and line["empty"] == {}
        # DC: 2 virtual nodes of 3 ranks, 1 dedicated core and 2 clients each
        assert line["server"] == [True, False, True, False, 2, 1, 2]
        assert line["client_comm"] == (
            "damaris4py.server.getclientcomm(): this <pyscript> runs on a dedicated core or "
            "node, which has no clients' communicator; use getservercomm()")
        # getdamariscomm(): the servers' communicator (Damaris: GetEntityComm() on a server);
        # getglobalcomm(): every rank
        assert line["damaris_comm"] == [2, True, 2, 6]


CLIENT_COMM = '''
import json
from damaris4py import server
from mpi4py import MPI
def main(DD):
    comm = server.getclientcomm()
    total = comm.allreduce(comm.Get_rank())  # a collective over the clients
    with open(f"clients-{comm.Get_rank()}.jsonl", "a") as f:
        f.write(json.dumps([comm.Get_size(), total, MPI.Comm.Compare(
            comm, server.getservercomm()) in (MPI.IDENT, MPI.CONGRUENT)]) + "\\n")
'''


def test_under_time_partitioning_a_script_gets_the_clients_communicator(tmp_path):
    """Under time partitioning a script runs on the clients: getclientcomm() raised "a
    <pyscript> runs on a server" there."""
    result = run(tmp_path, "tp", '<pyscript name="count" file="clients.py"/>',
                 {"clients.py": CLIENT_COMM})
    assert result.returncode == 0, result.stderr
    clients = APPROACHES["tp"][2]
    assert records(tmp_path, "clients-*.jsonl") == [
        [clients, clients * (clients - 1) // 2, True]] * (clients * ITERATIONS)


def test_dask_stats_outlive_the_run(scheduler):
    """DaskStats (Damaris 1.7's interface): updates from one 'run', read back by another client
    after it closed, as its stats_get_results.py does; count, mean and sample variance as NumPy
    computes them; before a second value the variance is NaN, before the first there is no
    array (KeyError)."""
    import numpy as np
    from distributed import Client
    from damaris4py.dask.damaris_stats import DaskStats
    values = [np.arange(12.0).reshape(3, 4) * k + k for k in (1.0, 2.0, 5.0)]
    name = f"stats-{os.getpid()}"

    class Field:  # what update() uses of a dask.array (this scheduler has no workers)
        def __init__(self, array):
            self.array, self.chunks = array, ((3,), (2, 2))

        def compute(self):
            return self.array

    with Client(scheduler_file=str(scheduler), timeout="10s") as client:
        stats = DaskStats(name, name + "-lock")
        assert stats.return_count(client, lock_timeout=10) == 0
        for read in (stats.return_mean, stats.return_variance):
            with pytest.raises(KeyError, match=f"damaris_stats '{name}': no value was added yet "
                                               r"\(count 0\); update\(\) adds one"):
                read(client, lock_timeout=10)
        stats.update(Field(values[0]), client, lock_timeout=10)
        # one value: its mean, and a variance of NaN in its shape and chunks (as Damaris means
        # its return_variance), so that stats_get_results.py's map_blocks runs
        mean, var = stats.return_mean_var_tuple(client, lock_timeout=10)
        assert var.shape == (3, 4) and var.chunks == ((3,), (2, 2))
        assert np.isnan(var.compute(scheduler="synchronous")).all()
        np.testing.assert_array_equal(mean.compute(scheduler="synchronous"), values[0])
        for v in values[1:]:
            stats.update(Field(v), client, lock_timeout=10)
    with Client(scheduler_file=str(scheduler), timeout="10s") as client:
        stats = DaskStats(name, name + "-lock")
        assert stats.return_count(client, lock_timeout=10) == 3
        mean, var = stats.return_mean_var_tuple(client, lock_timeout=10)
        assert mean.chunks == ((3,), (2, 2))
        np.testing.assert_allclose(mean.compute(scheduler="synchronous"),
                                   np.mean(values, axis=0), rtol=1e-12)
        np.testing.assert_allclose(var.compute(scheduler="synchronous"),
                                   np.var(values, axis=0, ddof=1), rtol=1e-12)
        averages = mean.map_blocks(stats.compute_block_average, chunks=stats.get_chunks(client))
        np.testing.assert_allclose(averages.compute(scheduler="synchronous"),
                                   [[np.mean(values, axis=0)[:, :2].mean(),
                                     np.mean(values, axis=0)[:, 2:].mean()]], rtol=1e-12)


def test_blocks_are_placed_by_their_offsets_and_must_tile_a_box():
    import numpy as np
    from ecluse import insitu
    a = np.arange(12.0).reshape(3, 4)
    pieces = [((3, 0), (3, 4), "<f8", a + 100), ((0, 4), (3, 2), "<f8", a[:, :2] + 10),
              ((0, 0), (3, 4), "<f8", a), ((3, 4), (3, 2), "<f8", a[:, :2] + 1000)]
    import dask.array as da
    x = da.block(insitu._grid(pieces)).compute(scheduler="synchronous")
    assert x.shape == (6, 6)
    assert (x[:3, :4] == a).all() and (x[3:, :4] == a + 100).all()
    assert (x[:3, 4:] == a[:, :2] + 10).all() and (x[3:, 4:] == a[:, :2] + 1000).all()
    with pytest.raises(ValueError, match=r"the 3 blocks do not tile a box \(offsets per "
                                         r"dimension: \[\[0, 3\], \[0, 4\]\]\)"):
        insitu._grid(pieces[:3])


def test_scalar_from_position_indexes_as_damaris_does(capsys):
    import numpy as np
    from ecluse import insitu
    from damaris4py.dask import damaris_dask
    block = np.arange(12.0).reshape(3, 4)
    DD = {"iteration_data": {"t": {"numpy_data": {"P1_B0": block}}}}
    assert damaris_dask.return_scalar_from_position(DD, "t", (1, 2), client_rank=1) == 6.0
    np.testing.assert_array_equal(  # Damaris's default pos=(0) is the first row of a 2-D block
        damaris_dask.return_scalar_from_position(DD, "t", client_rank=1), block[0])
    assert isinstance(insitu.scalar(DD, "t", [2, 3], client_rank=1), np.float64)
    assert damaris_dask.return_scalar_from_position(DD, "t", (0, 0)) is None  # no P0_B0 here
    assert damaris_dask.return_scalar_from_position(DD, "t", (5, 0), client_rank=1) is None
    assert capsys.readouterr().out.startswith("damaris4py Error: IndexError:  index 5 is out of "
                                              "bounds for axis 0 with size 3")
    with pytest.raises(IndexError):
        insitu.scalar(DD, "t", (5, 0), client_rank=1)


@pytest.mark.parametrize("nthreads,omp,threads", [(3, "8", 3), (0, "4,2", 4), (0, "", 1),
                                                  (0, "x", 1), (0, "0", 1), (0, None, 1)])
def test_dask_worker_threads_from_nthreads_or_openmp(monkeypatch, nthreads, omp, threads):
    """nthreads="openmp" (0) takes OMP_NUM_THREADS's outer level: "4,2" (nested) is valid."""
    from ecluse import _insitu_runtime
    if omp is None:
        monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("OMP_NUM_THREADS", omp)
    assert _insitu_runtime._threads({"nthreads": nthreads}) == threads


def test_blocks_futures_are_freed_with_the_array_without_the_garbage_collector():
    """The futures of dask_array's blocks (their data on the workers) go with the array, not at
    the next garbage collection: a worker still holding them at finalize cannot retire."""
    import gc
    import weakref
    from ecluse import insitu

    class Future:
        pass
    futures = [Future(), Future()]
    alive = [weakref.ref(f) for f in futures]
    pieces = [((0, 0), (2, 2), "<f8", futures[0]), ((2, 0), (2, 2), "<f8", futures[1])]
    gc.disable()
    try:
        grid = insitu._grid(pieces)
        assert len(grid) == 2
        del grid, pieces, futures
        assert [a() for a in alive] == [None, None]
    finally:
        gc.enable()


KNOWN_CLIENTS = '''
import json
from damaris4py.server import getservercomm, listknownclients
from ecluse import insitu
def main(DD):
    it = DD["iteration_data"]
    with open(f"known-{getservercomm().Get_rank()}.jsonl", "a") as f:
        f.write(json.dumps({"iteration": it["iteration"], "damaris": listknownclients(),
                            "ecluse": insitu.known_clients(),
                            "blocks": sorted(it["pressure"]["numpy_data"])}) + "\\n")
'''

# By writer rank: the clients of the placement (DC: the 2 clients of each virtual node; DN: the
# dedicated node's 2 ranks split the 4 clients; TP: the client itself).
SERVED = {"tp": {0: [0], 1: [1]}, "dc": {0: [0, 1], 1: [2, 3]}, "dn": {0: [0, 1], 1: [2, 3]}}


@pytest.mark.parametrize("approach", ["tp", "dc", "dn"])
def test_known_clients_come_from_the_placement_before_any_block(tmp_path, approach):
    """listknownclients() (and ecluse.insitu.known_clients()) is the writer's clients from the
    first iteration on, as Damaris's topology list, even when the script's only variable is
    never written."""
    text = config(approach, '<pyscript name="count" file="known.py"/>', script_attr="")
    text = text.replace(
        "</data>", '<variable name="pressure" layout="slab" script="count" store="#"/></data>')
    result = run_xml(tmp_path, approach, text, {"known.py": KNOWN_CLIENTS})
    assert result.returncode == 0, result.stderr
    for rank, clients in SERVED[approach].items():
        lines = records(tmp_path, f"known-{rank}.jsonl")
        assert lines == [{"iteration": i, "damaris": clients, "ecluse": clients, "blocks": []}
                         for i in range(ITERATIONS)]


ONCE = '''
import json
from ecluse import insitu
def main(DD):
    it = DD["iteration_data"]
    y = it.get("y", {"numpy_data": {}})
    with open(f"once-{insitu.server_comm().Get_rank()}.jsonl", "a") as f:
        f.write(json.dumps({"iteration": it["iteration"],
                            "variables": sorted(k for k in it if k != "iteration"),
                            "y": {k: a.tolist() for k, a in y["numpy_data"].items()}}) + "\\n")
'''


@pytest.mark.parametrize("approach", ["tp", "dc"])
def test_a_variable_that_is_not_time_varying_is_given_at_iteration_0_only(tmp_path, approach):
    """y (time-varying="false", written before the first iteration) is in DD at iteration 0
    only, as in Damaris; its HDF5 output is unchanged (stored once, at iteration 0)."""
    scripts = '<pyscript name="count" file="once.py"/>'
    text = config(approach, scripts).replace('time-varying="false" store="files"/>',
                                             'time-varying="false" store="files" '
                                             'script="count"/>')
    result = run_xml(tmp_path, approach, text, {"once.py": ONCE})
    assert result.returncode == 0, result.stderr
    _, _, clients, _ = APPROACHES[approach]
    y = [j * 0.5 for j in range(NY)]  # the example's y (examples/simulation.c)
    for rank, served in SERVED[approach].items():
        lines = records(tmp_path, f"once-{rank}.jsonl")
        assert lines[0] == {"iteration": 0, "variables": ["temperature", "y"],
                            "y": {f"P{c}_B0": y for c in served}}
        assert lines[1:] == [{"iteration": i, "variables": ["temperature"], "y": {}}
                             for i in range(1, ITERATIONS)]
    assert read_output.check_per_process(tmp_path / "out", ITERATIONS, clients) > 0


TOP_LEVEL = '''import json
from damaris4py.server import getservercomm
try:
    calls += 1
except NameError:
    calls = 1
iteration = DamarisData["iteration_data"]["iteration"]
with open(f"top-{getservercomm().Get_rank()}.jsonl", "a") as f:
    f.write(json.dumps({"iteration": iteration, "calls": calls, "name": __name__,
                        "blocks": sorted(DamarisData["iteration_data"]["temperature"]
                                         ["numpy_data"])}) + "\\n")
if iteration == 2:
    raise ValueError("top-level failure")
'''

MAIN_AND_GUARD = '''import json
from damaris4py.server import getservercomm
def main(DD):
    with open(f"guard-{getservercomm().Get_rank()}.jsonl", "a") as f:
        f.write(json.dumps({"iteration": DD["iteration_data"]["iteration"]}) + "\\n")
if __name__ == '__main__':
    main(DamarisData)
'''


def test_a_script_without_main_runs_whole_at_every_iteration(tmp_path):
    """A Damaris script written as top-level code runs whole at each iteration with DamarisData
    and __name__ == '__main__', its globals kept across iterations; a failure prints the
    traceback with the iteration and the run goes on. A script with main and Damaris's
    `if __name__ == '__main__': main(DamarisData)` still runs main once per iteration."""
    scripts = ('<pyscript name="top" file="top.py"/>\n'
               '<pyscript name="guard" file="guard.py"/>')
    result = run(tmp_path, "dc", scripts, {"top.py": TOP_LEVEL, "guard.py": MAIN_AND_GUARD},
                 script_attr='script="top,guard"')
    assert result.returncode == 0, result.stderr
    for rank, served in SERVED["dc"].items():
        assert records(tmp_path, f"top-{rank}.jsonl") == [
            {"iteration": i, "calls": i + 1, "name": "__main__",
             "blocks": [f"P{c}_B0" for c in served]} for i in range(ITERATIONS)]
        assert records(tmp_path, f"guard-{rank}.jsonl") == [{"iteration": i}
                                                            for i in range(ITERATIONS)]
    ranks = logged_ranks(result.stderr, "error: pyscript 'top' failed at iteration 2")
    assert len(ranks) == 2
    for rank in ranks:  # the MPI ranks of the dedicated cores, as Ecluse's own line
        assert (f"[ecluse {rank}] pyscript 'top' (top.py) failed at iteration 2; the run goes on "
                "and calls it again at its next iteration:\nTraceback (most recent call last):\n"
                "  File \"top.py\", line 13, in <module>\n    raise ValueError(\"top-level "
                "failure\")\nValueError: top-level failure\n") in result.stderr
    assert "failed at iteration 0" not in result.stderr
    assert read_output.check_per_process(tmp_path / "out", ITERATIONS, 4) == ITERATIONS * 2


KEEP = '''
import numpy as np
from ecluse import insitu
kept = []
def main(DD):
    t = DD["iteration_data"]["temperature"]["numpy_data"]
    key = sorted(t)[0]
    what = "{what}"
    if what == "whole":
        kept.append(t[key])
    elif what == "slice":
        kept.append(t[key][1:-1, 1:-1])
    elif what == "interior":
        kept.append(insitu.interior(DD, "temperature", key))
    else:
        kept.append(np.array(t[key][1:-1]))
'''


@pytest.mark.parametrize("what", ["whole", "slice", "interior", "copy"])
def test_a_view_kept_past_the_call_is_said_once(tmp_path, what):
    """A block's memory is reused once main(DD) returns: keeping the array, a slice of it or
    insitu.interior's view is said once per writer, with its rank; a copy is not."""
    result = run(tmp_path, "tp", '<pyscript name="keep" file="keep.py"/>',
                 {"keep.py": KEEP.replace("{what}", what)}, script_attr='script="keep"')
    assert result.returncode == 0, result.stderr
    said = logged_ranks(result.stderr, "pyscript 'keep' kept a NumPy view of iteration 0's "
                                       "blocks after the script returned: that memory is reused "
                                       "for later blocks; keep a copy (np.array(view)) instead.")
    assert said == ([] if what == "copy" else [0, 1]), result.stderr
    assert "kept a NumPy view of iteration 1" not in result.stderr


def test_dask_block_layout_is_the_text_damaris_prints():
    """return_dask_block_layout (what print_array_component prints): the nested list of
    published blocks Damaris builds, ordered by offsets; a new row closes and reopens lists."""
    from damaris4py.dask.damaris_dask import return_dask_block_layout
    servers = [[["S0_I3_m", "P0_B0", [0, 0, 0]], ["S0_I3_m", "P0_B1", [0, 0, 4]]],
               [["S1_I3_m", "P1_B1", [8, 0, 4]], ["S1_I3_m", "P1_B0", [8, 0, 0]]]]
    assert return_dask_block_layout(servers) == (
        "data = [[[client.datasets['S0_I3_m']['P0_B0'],client.datasets['S0_I3_m']['P0_B1']]\n"
        "]\n"
        ",[[client.datasets['S1_I3_m']['P1_B0'],client.datasets['S1_I3_m']['P1_B1']]]]")
    grid = [[["S0_I0_m", f"P{c}_B0", [c // 2 * 4, c % 2 * 6]] for c in range(4)]]
    assert return_dask_block_layout(grid, "c") == (
        "data = [[c.datasets['S0_I0_m']['P0_B0'],c.datasets['S0_I0_m']['P1_B0']]\n"
        ",[c.datasets['S0_I0_m']['P2_B0'],c.datasets['S0_I0_m']['P3_B0']]]")


# The error and the script's frame refer to each other (as distributed's _gather leaves a
# FutureCancelledError): the frame, DD and its views outlived the call until the garbage
# collector ran, and a failure was followed by "kept a NumPy view", blaming the script.
FAILING_IN_A_CYCLE = '''
def main(DD):
    t = DD["iteration_data"]["temperature"]["numpy_data"]
    try:
        raise ValueError("failed")
    except ValueError as error:
        kept = error
        raise
'''


def test_a_failure_is_not_said_to_keep_a_view(tmp_path):
    result = run(tmp_path, "tp", '<pyscript name="cycle" file="cycle.py"/>',
                 {"cycle.py": FAILING_IN_A_CYCLE}, script_attr='script="cycle"')
    assert result.returncode == 0, result.stderr
    assert len(logged_ranks(result.stderr, "error: pyscript 'cycle' failed at iteration 0: "
                                           "ValueError: failed")) == 2, result.stderr
    assert "kept a NumPy view" not in result.stderr, result.stderr
