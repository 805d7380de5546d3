"""The example simulation run under mpiexec with 1, 2 and 4 ranks; output read back with h5py."""
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("ECLUSE_BUILD", ROOT / "build"))
sys.path.insert(0, str(ROOT / "examples"))
import read_output  # noqa: E402
from mpirun import h5_contents, mpiexec  # noqa: E402



def run_example(tmp_path, ranks, iterations, config=None, wrap=()):
    """`wrap`: a command each rank runs the example through (e.g. one that binds it)."""
    shutil.copy(ROOT / "examples" / "simulation.xml", tmp_path / "simulation.xml")
    if config:
        (tmp_path / "simulation.xml").write_text(config)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    return subprocess.run([mpiexec(), "-n", str(ranks), *wrap,
                           str(BUILD / "examples" / "ecluse_example_simulation"),
                           "simulation.xml", str(iterations)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("ranks", [1, 2, 4])
def test_example_output_reads_back(tmp_path, ranks):
    result = run_example(tmp_path, ranks, 3)
    assert result.returncode == 0, result.stderr
    assert f"heat: 3 iterations on {ranks} ranks written" in result.stdout
    assert "event checkpoint at iteration 2" in result.stdout
    out = tmp_path / "out"
    assert read_output.check_per_process(out, 3, ranks) == 3 * ranks
    assert read_output.check_collective(out, 3, ranks) == 3
    assert not list(out.rglob("*.part")), "no partial file may stay behind"


@pytest.mark.parametrize("ranks,cores,per_node", [(4, 1, 4), (4, 1, 2), (6, 2, 6)])
def test_dedicated_cores_store_the_same_data_in_fewer_files(tmp_path, ranks, cores, per_node):
    text = (ROOT / "examples" / "simulation.xml").read_text().replace(
        '<dedicated cores="0" nodes="0"/>',
        f'<dedicated cores="{cores}" nodes="0"/><virtual-nodes ranks-per-node="{per_node}"/>')
    result = run_example(tmp_path, ranks, 3, config=text)
    assert result.returncode == 0, result.stderr
    clients = ranks - cores * (ranks // per_node)
    assert f"heat: 3 iterations on {clients} ranks written" in result.stdout
    out = tmp_path / "out"
    servers = ranks - clients
    assert read_output.check_per_process(out, 3, clients) == 3 * servers
    assert read_output.check_collective(out, 3, clients) == 3
    assert not [p for p in pathlib.Path("/dev/shm").iterdir() if p.name.startswith("ecluse-")]


def with_architecture(line):
    return (ROOT / "examples" / "simulation.xml").read_text().replace(
        '<dedicated cores="0" nodes="0"/>', line)


@pytest.mark.parametrize("ranks,nodes,per_node", [(4, 1, 1), (5, 2, 1), (8, 2, 2)])
def test_dedicated_nodes_store_every_value(tmp_path, ranks, nodes, per_node):
    text = with_architecture(
        f'<dedicated cores="0" nodes="{nodes}"/><virtual-nodes ranks-per-node="{per_node}"/>')
    result = run_example(tmp_path, ranks, 3, config=text)
    assert result.returncode == 0, result.stderr
    servers = nodes * per_node
    clients = ranks - servers
    assert f"heat: 3 iterations on {clients} ranks written" in result.stdout
    out = tmp_path / "out"
    assert read_output.check_per_process(out, 3, clients) == 3 * servers
    assert read_output.check_collective(out, 3, clients) == 3



def test_dedicated_nodes_write_exactly_what_dedicated_cores_write(tmp_path):
    (tmp_path / "dc").mkdir()
    (tmp_path / "dn").mkdir()
    # 3 clients and 1 server either way: the same files, datasets and attributes.
    dc = run_example(tmp_path / "dc", 4, 3, with_architecture(
        '<dedicated cores="1" nodes="0"/><virtual-nodes ranks-per-node="4"/>'))
    dn = run_example(tmp_path / "dn", 4, 3, with_architecture(
        '<dedicated cores="0" nodes="1"/><virtual-nodes ranks-per-node="1"/>'))
    assert dc.returncode == 0 and dn.returncode == 0, dc.stderr + dn.stderr
    a, b = h5_contents(tmp_path / "dc" / "out"), h5_contents(tmp_path / "dn" / "out")
    assert len(a) > 20
    assert a.keys() == b.keys()
    assert a == b


def test_broken_config_fails_on_every_rank_and_writes_nothing(tmp_path):
    text = (ROOT / "examples" / "simulation.xml").read_text().replace('dimensions="NY"', 'dimensions="NY/0"')
    result = run_example(tmp_path, 2, 1, config=text)
    assert result.returncode != 0
    message = ("simulation.xml:17:5: layout 'row': dimension 1 \"NY/0\": "
               "division by zero (NY=48); change the parameter values or the expression.")
    # Ecluse's line, printed once at initialize, then the program's own on each rank: the
    # example ends every rank with MPI_Finalize on a configuration error (no MPI_Abort, whose
    # tear-down could drop output the launcher had not forwarded yet).
    assert result.stderr.count(f"ecluse: initialize failed (ECLUSE_CONFIG_ERROR): {message}") == 1
    assert result.stderr.count(f"ecluse_initialize failed: ECLUSE_CONFIG_ERROR: {message}") == 2
    assert not (tmp_path / "out").exists()


def test_warnings_come_before_a_placement_refused_for_its_rank_count(tmp_path):
    """A file's warnings are said before the placement is checked: a run refused for its rank
    count shows them at once, not only once the rank count is fixed."""
    text = (ROOT / "examples" / "simulation.xml").read_text()
    text = text.replace('<dedicated cores="0" nodes="0"/>', '<dedicated cores="2" nodes="0"/>')
    text = text.replace("</simulation>", "<visit/></simulation>")
    result = run_example(tmp_path, 1, 1, config=text)
    assert result.returncode != 0
    warning = ("<visit>: Ecluse has no VisIt back-end; nothing is sent to VisIt (variables that "
               "name a store are still written).")
    refusal = "leaves none for the simulation; run at least 4 ranks per node"
    assert warning in result.stderr, result.stderr
    assert refusal in result.stderr, result.stderr
    assert result.stderr.index(warning) < result.stderr.index(refusal)



@pytest.mark.parametrize("env,origin", [
    ({"ECLUSE_RANKS_PER_NODE": "1"}, ". Nodes here have ECLUSE_RANKS_PER_NODE=1 ranks, which "
                                     "overrides the file's <virtual-nodes ranks-per-node=\"2\"/>."),
    ({}, None)])
def test_a_placement_refused_for_its_node_size_says_where_the_size_comes_from(tmp_path, env,
                                                                            origin):
    """ECLUSE_RANKS_PER_NODE left set from another run overrode the file's <virtual-nodes>, and
    the refusal ("node 0 has 1 rank(s) ...") did not say so."""
    text = (ROOT / "examples" / "simulation.xml").read_text().replace(
        '<dedicated cores="0" nodes="0"/>',
        '<dedicated cores="1" nodes="0"/><virtual-nodes ranks-per-node="2"/>')
    old = dict(os.environ)
    os.environ.pop("ECLUSE_RANKS_PER_NODE", None)
    os.environ.update(env)
    try:
        result = run_example(tmp_path, 2, 1, config=text)
    finally:
        os.environ.clear()
        os.environ.update(old)
    if origin is None:  # nodes of 2 ranks: accepted
        assert result.returncode == 0, result.stderr
        return
    assert result.returncode != 0
    assert ("node 0 has 1 rank(s) but <dedicated cores=\"1\"/> leaves none for the simulation; run "
            "at least 2 ranks per node (every dedicated core needs a client) or lower the number "
            "of dedicated cores" + origin) in result.stderr, result.stderr
