"""Sizes given at run time and Damaris's type layouts (ROSS's RISA pattern), through the
Damaris drop-in under synchronous mode, dedicated cores and dedicated nodes: a layout whose
parameter is 0 at initialize is warned about once, a write before damaris_parameter_set gives
it a size is refused with its message, the writes after it are stored bit for bit; scalars
declared with layout="double" / layout="int" (Damaris's one-element layouts) are stored."""
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from mpirun import BUILD, child_env, iteration_datasets, mpiexec  # noqa: E402

BIN = pathlib.Path(os.environ.get("ECLUSE_DAMARIS_BIN", BUILD / "tests" / "damaris")).resolve()
CLIENTS, ITERATIONS = 3, 2
# mode: (<dedicated> line, ranks, ECLUSE_RANKS_PER_NODE)
MODES = {
    "sync": ('<dedicated cores="0" nodes="0"/>', 3, None),
    "DC": ('<dedicated cores="1" nodes="0"/>', 4, "4"),
    "DN": ('<dedicated cores="0" nodes="1"/>', 4, "1"),
}
XML = """<?xml version="1.0"?>
<simulation name="sizes" language="c" xmlns="http://damaris.gforge.inria.fr/damaris/model">
  <architecture>
    <domains count="1"/>
    {dedicated}
    <buffer name="buffer" size="1048576"/>
    <queue name="queue" size="100"/>
  </architecture>
  <data>
    <parameter name="num_lp" type="int" value="0"/>
    <layout name="lp_layout" type="double" dimensions="num_lp"/>
    <group name="lp">
      <variable name="values" layout="lp_layout" store="h5"/>
      <variable name="now" layout="double" store="h5"/>
      <variable name="count" layout="int" store="h5"/>
    </group>
  </data>
  <storage>
    <store name="h5" type="HDF5">
      <option key="FileMode">FilePerCore</option>
      <option key="FilesPath">out/</option>
    </store>
  </storage>
</simulation>
"""
WARNING = ("sizes.xml:11:5: layout 'lp_layout': dimension 1 \"num_lp\" is 0 (num_lp=0) at "
           "initialize; as in Damaris, the layout is evaluated again at each write: give its "
           "parameters positive values with damaris_parameter_set before writing its variables "
           "(a write while it is 0 is refused).")
REFUSED = ("variable 'lp/values': layout 'lp_layout': dimension 1 \"num_lp\" is 0 (num_lp=0); "
           "give its parameters positive values with ecluse_parameter_set before writing it.")


def expected(iteration):
    datasets = {}
    for client in range(CLIENTS):
        n = 3 + client
        datasets[f"lp/values/P{client}"] = iteration * 1000.0 + client * 100.0 + np.arange(n)
        datasets[f"lp/now/P{client}"] = np.array([iteration + client / 10.0])
        datasets[f"lp/count/P{client}"] = np.array([n], dtype=np.int32)
    return datasets


def run_program(tmp_path, name, mode, xml_name, xml, *args):
    """Runs tests/damaris/<name> on `xml` in `mode` (MODES); skipped when it is not built."""
    program = BIN / name
    if not program.exists():
        pytest.skip(f"{program} is not built (built in the tree only: it links libecluse too)")
    dedicated, ranks, per_node = MODES[mode]
    (tmp_path / xml_name).write_text(xml.replace("{dedicated}", dedicated))
    env = dict(child_env(), ECLUSE_TIMEOUT="30")
    env.pop("ECLUSE_RANKS_PER_NODE", None)
    if per_node:
        env["ECLUSE_RANKS_PER_NODE"] = per_node
    return subprocess.run([mpiexec(), "-n", str(ranks), str(program), xml_name, *args],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180)


@pytest.mark.parametrize("mode", MODES)
def test_sizes_set_at_run_time_and_type_layouts_are_stored(tmp_path, mode):
    result = run_program(tmp_path, "damaris_sizes", mode, "sizes.xml", XML)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = dict(line.split("|", 1) for line in result.stdout.splitlines() if "|" in line)
    assert lines["write-unset"] == "ECLUSE_INVALID_DIMENSIONS|" + REFUSED
    assert lines["write-unset-null"] == "ECLUSE_INVALID_DIMENSIONS|" + REFUSED
    assert lines["set"] == "ECLUSE_OK|"
    assert result.stdout.splitlines().count("sizes: ok") == CLIENTS
    assert result.stderr.count(WARNING) == 1, result.stderr
    # Two lines per client, each with its world rank ("[damaris 2] error: ..."): the same error
    # twice is said once, then counted at the next answer.
    said = [re.fullmatch(r"\[damaris (\d+)\] error: (.*)", line)
            for line in result.stderr.splitlines() if line.startswith("[damaris")]
    assert all(said), result.stderr
    by_rank = {}
    for m in said:
        by_rank.setdefault(int(m.group(1)), []).append(m.group(2))
    assert list(by_rank.values()) == [[REFUSED.replace("ecluse_", "damaris_"),
                                       "the error above came again 1 more time(s)"]] * CLIENTS
    assert all(int(m.group(1)) < MODES[mode][1] for m in said)
    for iteration in range(ITERATIONS):
        datasets, _ = iteration_datasets(tmp_path / "out", "sizes", iteration)
        want = expected(iteration)
        assert sorted(datasets) == sorted(want), iteration
        for name, value in want.items():
            assert datasets[name].dtype == value.dtype, name
            assert datasets[name].tobytes() == value.tobytes(), (iteration, name)


# PDI's plain-Damaris heat example: sizes declared as placeholders of 1 with ghosts 1:1 (not a
# valid layout) and set one by one before the first write. It was refused at initialize.
HEAT_XML = """<?xml version="1.0"?>
<simulation name="heat" language="c" xmlns="http://damaris.gforge.inria.fr/damaris/model">
  <architecture>
    <domains count="1"/>
    {dedicated}
    <buffer name="buffer" size="1048576"/>
    <queue name="queue" size="100"/>
  </architecture>
  <data>
    <parameter name="dim0" type="int" value="{placeholder}"/>
    <parameter name="dim1" type="int" value="{placeholder}"/>
    <parameter name="global0" type="int" value="1"/>
    <parameter name="global1" type="int" value="1"/>
    <layout name="l" type="double" dimensions="dim0,dim1" global="global0,global1"
            ghosts="1:1,1:1"/>
    <variable name="field" layout="l" store="h5"/>
  </data>
  <storage>
    <store name="h5" type="HDF5">
      <option key="FileMode">Collective</option>
      <option key="FilesPath">out/</option>
    </store>
  </storage>
  <log FileName="log/heat" RotationSize="5" LogFormat="[%TimeStamp%]: %Message%" LogLevel="info"/>
</simulation>
"""
HEAT_INVALID = ("layout 'l': ghosts of dimension 1 are 1:1 for a dimension of 1; ghosts must be "
                ">= 0 and leave at least one interior cell.")
HEAT_WARNING = ("heat.xml:14:5: " + HEAT_INVALID + " That is with the parameters' values at "
                "initialize; as in Damaris, the layout is evaluated again at each write: give its "
                "parameters values that make it valid with damaris_parameter_set before writing "
                "its variables (a write while it is not valid is refused).")
HEAT_REFUSED = ("variable 'field': " + HEAT_INVALID + " Give its parameters values that make it "
                "valid with ecluse_parameter_set before writing it.")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("placeholder", [1, 1000])
def test_placeholder_sizes_invalid_until_set_are_evaluated_at_the_writes(tmp_path, mode,
                                                                         placeholder):
    """Placeholders of 1 make an invalid layout (ghosts 1:1); of 1000 a block of 8 MB that no
    client's share of the 1 MiB buffer holds: neither is refused before the program sets the
    sizes, as Damaris checks nothing before the writes."""
    early = ["early"] if placeholder == 1 else []
    result = run_program(tmp_path, "damaris_placeholders", mode, "heat.xml",
                         HEAT_XML.replace("{placeholder}", str(placeholder)), *early)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = dict(line.split("|", 1) for line in result.stdout.splitlines() if "|" in line)
    assert lines["set-first"] == "ECLUSE_OK|"  # dim1 is still a placeholder: set later
    if placeholder == 1:
        assert lines["write-early"] == "ECLUSE_INVALID_DIMENSIONS|" + HEAT_REFUSED
        assert result.stderr.count(HEAT_WARNING) == 1, result.stderr
    assert result.stdout.splitlines().count("placeholders: ok") == CLIENTS
    assert "RotationSize" not in result.stderr  # Damaris requires it: not warned
    import h5py
    for iteration in range(2):
        with h5py.File(tmp_path / "out" / f"heat_It{iteration}.h5", "r") as f:
            field = f["field"][()]
        rows, cols = np.meshgrid(np.arange(4 * CLIENTS), np.arange(5), indexing="ij")
        want = iteration * 1000.0 + rows * 10.0 + cols
        assert field.tobytes() == want.tobytes(), iteration


TOO_BIG_WITH_ITS_VALUES = """<?xml version="1.0"?>
<simulation name="s" language="c" xmlns="http://damaris.gforge.inria.fr/damaris/model">
  <architecture><domains count="1"/><dedicated cores="1" nodes="0"/>
    <buffer name="b" size="300"/></architecture>
  <data>
    <parameter name="NX" type="int" value="8"/>
    <layout name="l" type="double" dimensions="NX,NX"/>
    <variable name="v" layout="l"/>
  </data>
</simulation>
"""


def test_a_damaris_block_too_large_with_its_parameters_values_is_warned_by_name(tmp_path):
    """Not refused (damaris_parameter_set may shrink it before the first write), but said by
    name, as ecluse-check says it (tests/tools/test_check.py): only the whole iteration was
    warned, and every write of the run was then refused."""
    (tmp_path / "s.xml").write_text(TOO_BIG_WITH_ITS_VALUES)
    (tmp_path / "s.py").write_text("import ecluse\nwith ecluse.Session('s.xml') as s:\n"
                                   "    pass\n")
    result = subprocess.run([mpiexec(), "-n", "3", sys.executable, "s.py"], cwd=tmp_path,
                            env=child_env(), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    said = [line for line in result.stderr.splitlines() if "variable 'v' has blocks" in line]
    assert len(said) == 1, result.stderr  # the first client only, not every client
    assert all(("warning: variable 'v' has blocks of 576 bytes of buffer (data and bookkeeping) "
                "with the values its parameters have at initialize, but a client may hold at "
                "most 128 bytes: its writes will be refused (ECLUSE_ALLOCATION_ERROR, counted in "
                "the run report) unless damaris_parameter_set makes its blocks smaller first")
               in line for line in said), said


def test_a_damaris_mask_that_a_node_cannot_satisfy_is_warned_at_initialize_and_falls_back(
        tmp_path):
    """Damaris 1.x ignores <placement mask>: its dedicated cores are the last local ranks. A
    Damaris file whose mask marks too few ranks of a node runs with that placement, and says so
    once (ecluse-check says the same: tests/tools/test_check.py). 5 ranks per node, 2 dedicated
    cores, a mask marking only local rank 4: ranks 3 and 4 serve, 0-2 are the clients."""
    xml = XML.replace('<domains count="1"/>',
                      '<domains count="1"/>\n    <placement mask="00001"/>')
    program = BIN / "damaris_sizes"
    if not program.exists():
        pytest.skip(f"{program} is not built (built in the tree only: it links libecluse too)")
    (tmp_path / "sizes.xml").write_text(xml.replace("{dedicated}",
                                                    '<dedicated cores="2" nodes="0"/>'))
    env = dict(child_env(), ECLUSE_TIMEOUT="30", ECLUSE_RANKS_PER_NODE="5")
    result = subprocess.run([mpiexec(), "-n", "5", str(program), "sizes.xml"], cwd=tmp_path,
                            env=env, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    warning = ("sizes.xml:5:5: node 0: <placement mask=\"00001\"> marks 1 of its 5 ranks as "
               "dedicated cores, but <dedicated cores=\"2\"/> needs 2. Damaris 1.x ignores the "
               "mask, so its placement is used: the last 2 local ranks (3-4) are the dedicated "
               "cores.")
    assert result.stderr.count(warning) == 1, result.stderr
    assert result.stdout.splitlines().count("sizes: ok") == CLIENTS
    clients = {int(m.group(1)) for m in
               (re.fullmatch(r"\[damaris (\d+)\] error: .*", line)
                for line in result.stderr.splitlines()) if m}
    assert clients == {0, 1, 2}, result.stderr
    for iteration in range(ITERATIONS):
        datasets, _ = iteration_datasets(tmp_path / "out", "sizes", iteration)
        want = expected(iteration)
        assert sorted(datasets) == sorted(want), iteration
        for name, value in want.items():
            assert datasets[name].tobytes() == value.tobytes(), (iteration, name)
