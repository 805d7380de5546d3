"""ecluse-check (docs/check.md): a configuration checked without MPI, as initialize reads it.
Run by ctest (tools.check) with ECLUSE_BUILD naming the build directory."""
import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("ECLUSE_BUILD", ROOT / "build"))
CHECK = BUILD / "tools" / "ecluse-check"
EXAMPLE = (ROOT / "examples" / "simulation.xml").read_text()


def run(*args, cwd=None, extra_env=None):
    # No MPI launcher and no MPI variables: the check needs neither.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMPI_", "PMIX_", "PMI_", "HYDRA_", "ECLUSE_RANKS"))}
    env["PATH"] = "/usr/bin:/bin"
    env.update(extra_env or {})
    return subprocess.run([str(CHECK), *map(str, args)], capture_output=True, text=True,
                          timeout=60, cwd=cwd, env=env)


def write(tmp_path, text, name="sim.xml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def with_architecture(line):
    return EXAMPLE.replace('<dedicated cores="0" nodes="0"/>', line)


def test_the_example_is_described_variable_by_variable():
    result = run(ROOT / "examples" / "simulation.xml")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "simulation 'heat' (Ecluse file, c)" in out
    assert "approach: time partitioning: every rank writes its own blocks at end_iteration" in out
    assert "parameters: NX=64 NY=48 ROWS=64 G=1" in out
    # (64+2) x (48+2) doubles = 26400 bytes; 4 ints; 48 floats.
    assert ("  temperature: double 66 x 50, 26400 bytes (25.8 KiB) a block; ghosts 1:1 x 1:1 "
            "(64 x 48 stored); global 64 x 48; files, shared") in out
    assert "  diagnostics/stats: int 4, 16 bytes a block; files" in out
    assert "  y: float 48, 192 bytes a block; files; not time-varying" in out
    assert "  total: 3 block(s), 26608 bytes (26.0 KiB)" in out
    assert "  files: HDF5, FileMode=FilePerCore, FilesPath=out/per-process" in out
    assert out.rstrip().endswith("simulation.xml: valid, 0 warning(s)")
    assert result.stderr == ""


def test_param_resizes_the_layouts_and_an_undeclared_name_is_refused(tmp_path):
    path = write(tmp_path, EXAMPLE)
    result = run("--param", "ROWS=10", "--param", "NY=8", path)
    assert result.returncode == 0, result.stdout
    assert ("  temperature: double 12 x 10, 960 bytes a block; ghosts 1:1 x 1:1 (10 x 8 stored); "
            "global 64 x 8; files, shared") in result.stdout
    result = run("--param", "NX=abc", path)
    assert result.returncode == 1
    assert (f"error: a --param value: {path}:11:5: parameter 'NX' has value 'abc' which is not a "
            "valid int; give a whole number from -2147483648 to 2147483647.") in result.stdout
    result = run("--param", "NZ=3", path)
    assert result.returncode == 1
    assert (f"error: --param NZ=3: {path} declares no parameter 'NZ'; give a <parameter> name "
            "it declares.") in result.stdout


def test_dedicated_cores_placement_per_node_size(tmp_path):
    path = write(tmp_path, with_architecture('<dedicated cores="1" nodes="0"/>'))
    result = run("--ranks", 10, "--ranks-per-node", 4, path)
    assert result.returncode == 0, result.stdout
    out = result.stdout
    assert ("placement on 10 rank(s), 4 per node (--ranks-per-node): 3 node(s)") in out
    # 64 MiB less the allocator's 64-byte header shared by 3 clients (what the run refuses
    # against: shm::client_share); the last node has 2 ranks: 1 client.
    # An iteration takes 26880 bytes of the buffer (test_a_buffer_too_small...): 832 fit in 21.3 MiB.
    assert ("  2 node(s) of 4 ranks: dedicated cores at local rank(s) 3, 3 client(s); each client "
            "may hold about 22369600 bytes (21.3 MiB) of the 67108864 bytes (64.0 MiB) buffer, "
            "room for 832 of its iterations") in out
    assert "  1 node(s) of 2 ranks: dedicated cores at local rank(s) 1, 1 client(s)" in out
    assert "note:" not in out


# DC: 64 KiB for 2 clients, 32736 bytes each, one iteration of 26880 bytes in the buffer (its
# blocks with their bookkeeping). DN: 256 KiB per node over the dedicated node's 2 ranks and 3
# clients each, 43690 bytes per client, one iteration of 26608 bytes (DN counts the payload).
@pytest.mark.parametrize("architecture,size,ranks,line,note", [
    ('<dedicated cores="1" nodes="0"/>', "64KiB", 3,
     "  1 node(s) of 3 ranks: dedicated cores at local rank(s) 2, 2 client(s); each client may "
     "hold about 32736 bytes (32.0 KiB) of the 65536 bytes (64.0 KiB) buffer, room for 1 of its "
     "iterations",
     "    note: a client then waits at each iteration until the previous one is stored; a "
     "<buffer size> of 107584 bytes (105.1 KiB) or more holds two"),
    ('<dedicated cores="0" nodes="1"/><virtual-nodes ranks-per-node="2"/>', "256KiB", 8,
     "  each server rank serves at most 3 client(s); each client may hold 43690 bytes (42.7 KiB) "
     "of its server's receive memory (<buffer size> per node), room for 1 of its iterations",
     "    note: a client then waits at each iteration for the credit of the previous one; a "
     "<buffer size> of 319296 bytes (311.8 KiB) or more holds two"),
])
def test_a_buffer_that_holds_one_iteration_says_the_client_will_wait(
        tmp_path, architecture, size, ranks, line, note):
    path = write(tmp_path, with_architecture(architecture).replace('size="64MiB"', f'size="{size}"'))
    result = run("--ranks", ranks, path)
    assert result.returncode == 0, result.stdout
    lines = result.stdout.splitlines()
    assert line in lines and note in lines
    assert result.stdout.rstrip().endswith("sim.xml: valid, 0 warning(s)")


def test_ranks_per_node_from_the_environment_as_the_run_reads_it(tmp_path):
    path = write(tmp_path, with_architecture('<dedicated cores="1" nodes="0"/>'))
    result = run("--ranks", 6, path, extra_env={"ECLUSE_RANKS_PER_NODE": "3"})
    assert result.returncode == 0, result.stdout
    assert "placement on 6 rank(s), 3 per node (ECLUSE_RANKS_PER_NODE): 2 node(s)" in result.stdout
    result = run("--ranks", 6, path, extra_env={"ECLUSE_RANKS_PER_NODE": "x"})
    assert result.returncode == 1
    assert ("error: ECLUSE_RANKS_PER_NODE='x' is not a positive integer; unset it or fix it."
            in result.stdout)


def test_a_buffer_too_small_for_one_whole_iteration_is_warned_as_initialize_warns(tmp_path):
    path = write(tmp_path, with_architecture('<dedicated cores="1" nodes="0"/>').replace(
        'size="64MiB"', 'size="96KiB"').replace('<domains count="1"/>', '<domains count="2"/>'))
    result = run("--ranks", 4, path)
    # Initialize does not refuse it (a client may write fewer blocks than it declares: ROSS's
    # RISA declares 5,000 domains): the writes past the share would be refused at run time.
    assert result.returncode == 0, result.stdout
    # In the buffer each block takes a 64-byte header and its payload rounded up to 64 bytes:
    # 2 x ((64 + 26432) + (64 + 64) + (64 + 192)) = 53760 bytes, each block fitting alone.
    assert ("warning: an iteration that writes all the blocks of a client (every variable, every "
            "domain) needs 53760 bytes (52.5 KiB) of the buffer (its blocks and their "
            "bookkeeping) but a client of a node of 4 ranks may hold about 32746 bytes (32.0 "
            "KiB): the writes of such an iteration past that would be refused at run time "
            "(initialize does not refuse it: a client may write fewer blocks); raise <buffer "
            "size> to at least 161344 bytes (157.6 KiB) (twice that, so that the next iteration "
            "can be written while one is stored), or write fewer blocks per iteration"
            ) in result.stdout
    assert result.stdout.rstrip().endswith("sim.xml: valid, 1 warning(s)")
    assert run("--strict", "--ranks", 4, path).returncode == 1
    # Without --ranks there is no placement, so no capacity to check.
    assert run(path).stdout.rstrip().endswith("sim.xml: valid, 0 warning(s)")


def test_a_block_larger_than_a_clients_share_is_refused_as_initialize_refuses_it(tmp_path):
    path = write(tmp_path, with_architecture('<dedicated cores="1" nodes="0"/>').replace(
        'size="64MiB"', 'size="32KiB"'))
    result = run("--ranks", 4, path)
    assert result.returncode == 1, result.stdout
    # initialize's own message (checked by hand against ecluse_initialize on 4 ranks).
    assert ("error: variable 'temperature' has blocks of 26496 bytes of buffer (data and "
            "bookkeeping) but a client may hold at most 10901 bytes: no write of it could ever "
            f"be handed over; raise <buffer size> (now 32768 bytes (32.0 KiB), at {path}:8:5) to "
            "at least 79552 bytes (77.7 KiB).") in result.stdout
    assert "warning: an iteration" not in result.stdout  # the block alone says it


def test_a_placement_initialize_would_refuse_is_refused_with_its_message(tmp_path):
    path = write(tmp_path, with_architecture('<dedicated cores="2" nodes="0"/>'))
    result = run("--ranks", 2, path)
    assert result.returncode == 1
    # With the place of <dedicated>, as every other configuration error.
    assert (f"error: {path}:7:5: node 0 has 2 rank(s) but <dedicated cores=\"2\"/> leaves none "
            "for the simulation; run at least 4 ranks per node") in result.stdout
    assert "placement on 2 rank(s), 2 per node" in result.stdout
    assert result.stdout.rstrip().endswith("sim.xml: refused, 0 warning(s)")


def test_dedicated_nodes_name_the_serving_nodes_and_the_window(tmp_path):
    path = write(tmp_path, with_architecture(
        '<dedicated cores="0" nodes="1"/><virtual-nodes ranks-per-node="2"/>'))
    result = run("--ranks", 8, path)
    assert result.returncode == 0, result.stdout
    out = result.stdout
    assert "placement on 8 rank(s), 2 per node (<virtual-nodes ranks-per-node>): 4 node(s)" in out
    assert "  dedicated node(s), by node index: 3" in out
    # 6 clients over 2 server ranks: 3 each; 64 MiB / 2 ranks / 3 clients.
    assert ("  each server rank serves at most 3 client(s); each client may hold 11184810 bytes "
            "(10.7 MiB) of its server's receive memory") in out


def test_a_broken_file_gives_initializes_message_with_its_place(tmp_path):
    path = write(tmp_path, EXAMPLE.replace('dimensions="NY"', 'dimensions="NY/0"'))
    result = run(path)
    assert result.returncode == 1
    assert (f"error: {path}:17:5: layout 'row': dimension 1 \"NY/0\": division by zero (NY=48); "
            "change the parameter values or the expression.") in result.stdout
    assert result.stdout.rstrip().endswith(f"{path}: refused")


def test_a_damaris_file_says_initializes_warnings_word_for_word():
    config = ROOT / "tests" / "configs" / "damaris" / "code_saturne.xml"
    expected = [line for line in config.with_suffix(".warnings").read_text().splitlines() if line]
    result = run(config.name, cwd=config.parent)
    assert result.returncode == 0, result.stdout
    assert "simulation 'cs_mesh_xyz' (Damaris 1.x file, " in result.stdout
    warnings = [line for line in result.stdout.splitlines() if line.startswith("warning: ")]
    assert warnings == ["warning: " + line for line in expected]
    assert result.stdout.splitlines()[-1] == f"code_saturne.xml: valid, {len(expected)} warning(s)"


@pytest.mark.parametrize("args,message", [
    ([], "no configuration file given"),
    (["--ranks", "0", "a.xml"], "--ranks '0' is not a positive integer (at most 16777216)"),
    (["--ranks-per-node", "4", "a.xml"], "--ranks-per-node needs --ranks"),
    (["--param", "NX", "a.xml"], "--param 'NX' is not NAME=VALUE"),
    (["--bogus", "a.xml"], "unexpected argument '--bogus'"),
    (["a.xml", "b.xml"], "unexpected argument 'b.xml'"),
])
def test_bad_usage_exits_2(args, message):
    result = run(*args)
    assert result.returncode == 2
    assert result.stderr.startswith(f"ecluse-check: {message}\nusage: ecluse-check")


def test_a_missing_file_is_refused(tmp_path):
    result = run(tmp_path / "none.xml")
    assert result.returncode == 1
    assert (f"error: cannot read configuration file '{tmp_path / 'none.xml'}': No such file or "
            "directory") in result.stdout


def test_a_directory_is_refused_as_a_directory(tmp_path):
    result = run(tmp_path)
    assert result.returncode == 1
    assert (f"error: '{tmp_path}' is a directory, not a configuration file; give the path of the "
            "XML file to ecluse_initialize.") in result.stdout


def test_a_total_beyond_64_bits_is_refused_not_wrapped(tmp_path):
    huge = ('<layout name="h" type="double" dimensions="2000000000000000000"/>'
            '<variable name="a" layout="h"/><variable name="b" layout="h"/>')
    text = EXAMPLE.replace("</data>", huge + "</data>")
    result = run(write(tmp_path, text))
    assert result.returncode == 1, result.stdout
    assert "  total: 5 block(s), more than 2^64 bytes" in result.stdout
    assert ("error: one client's blocks of one iteration add up to more than 2^64 bytes; make the "
            "layouts or <domains count> smaller") in result.stdout


def run_json(*args, **kwargs):
    result = run("--json", *args, **kwargs)
    assert result.stderr == ""
    return result.returncode, json.loads(result.stdout)


def test_json_gives_the_same_figures_as_the_text(tmp_path):
    path = write(tmp_path, with_architecture('<dedicated cores="1" nodes="0"/>'))
    status, out = run_json("--ranks", 10, "--ranks-per-node", 4, "--param", "ROWS=10", path)
    assert status == 0
    assert (out["file"], out["valid"], out["warnings"], out["errors"]) == (str(path), True, [], [])
    c = out["configuration"]
    assert (c["simulation"], c["dialect"], c["language"]) == ("heat", "ecluse", "c")
    assert c["approach"] == {"kind": "dc", "dedicated_cores": 1, "dedicated_nodes": 0,
                             "buffer_bytes": 67108864}
    assert c["parameters"] == {"NX": "64", "NY": "48", "ROWS": "10", "G": "1"}
    assert c["variables"][0] == {"name": "temperature", "type": "double", "shape": [12, 50],
                                 "ghosts": [[1, 1], [1, 1]], "stored_shape": [10, 48],
                                 "global": [64, 48], "bytes_per_block": 4800, "stores": ["files", "shared"],
                                 "every_store": False, "time_varying": True,
                                 "size_set_at_run_time": False}
    assert c["variables"][2]["time_varying"] is False
    assert c["blocks_per_client_iteration"] == 3
    assert c["bytes_per_client_iteration"] == 4800 + 16 + 192
    assert c["buffer_bytes_per_client_iteration"] == (64 + 4800) + (64 + 64) + (64 + 192)
    assert [s["name"] for s in c["stores"]] == ["files", "shared"]
    assert c["stores"][1]["options"] == {"FileMode": "Collective", "FilesPath": "out/collective"}
    assert c["placement"] == {
        "ranks": 10, "ranks_per_node": 4, "ranks_per_node_from": "--ranks-per-node", "nodes": 3,
        "node_sizes": [
            {"nodes": 1, "ranks_per_node": 2, "server_local_ranks": [1], "clients_per_node": 1,
             "approx_bytes_per_client": 67108800, "iterations_held": 67108800 // 5248,
             "queue_capacity": 1024},
            {"nodes": 2, "ranks_per_node": 4, "server_local_ranks": [3], "clients_per_node": 3,
             "approx_bytes_per_client": 22369600, "iterations_held": 22369600 // 5248,
             "queue_capacity": 1024}]}


def test_json_of_dedicated_nodes_and_of_a_buffer_too_small(tmp_path):
    path = write(tmp_path, with_architecture(
        '<dedicated cores="0" nodes="1"/><virtual-nodes ranks-per-node="2"/>').replace(
        'size="64MiB"', 'size="192KiB"').replace('<domains count="1"/>', '<domains count="2"/>'))
    status, out = run_json("--ranks", 8, path)
    assert status == 0 and out["valid"] is True
    assert out["configuration"]["placement"] == {
        "ranks": 8, "ranks_per_node": 2, "ranks_per_node_from": "<virtual-nodes ranks-per-node>",
        "nodes": 4, "dedicated_nodes": [3], "most_clients_per_server": 3,
        "bytes_per_client": 32768, "iterations_held": 0}
    # The size the run's own message gives (raise_buffer): the window scaled to one iteration.
    assert out["errors"] == []
    assert out["warnings"] == [
        "an iteration that writes all the blocks of a client (every variable, every domain) "
        "needs 53216 bytes (52.0 KiB) but a client may hold 32768 bytes (32.0 KiB) of its "
        "server's memory: the writes of such an iteration past that would be refused at run "
        "time (initialize does not refuse it: a client may write fewer blocks); raise <buffer "
        f"size> (now 196608 bytes (192.0 KiB), at {path}:8:5) to at least 319296 bytes (311.8 "
        "KiB), add dedicated nodes, or write fewer blocks per iteration"]
    # A block larger than the window alone: initialize refuses it, and so does the check.
    status, out = run_json("--ranks", 8, write(tmp_path, path.read_text().replace(
        'size="192KiB"', 'size="96KiB"')))
    assert status == 1 and out["errors"] == [
        "variable 'temperature' has blocks of 26400 bytes of the dedicated node's receive memory "
        "but a client may hold at most 16384 bytes: no write of it could ever be handed over; "
        f"raise <buffer size> (now 98304 bytes (96.0 KiB), at {path}:8:5) to at least 158400 "
        "bytes (154.7 KiB)."]


def test_json_of_a_refused_file_and_of_a_damaris_file(tmp_path):
    path = write(tmp_path, EXAMPLE.replace('dimensions="NY"', 'dimensions="NY/0"'))
    status, out = run_json(path)
    assert status == 1
    assert out == {"file": str(path), "valid": False, "warnings": [], "configuration": None,
                   "errors": [f"{path}:17:5: layout 'row': dimension 1 \"NY/0\": division by "
                              "zero (NY=48); change the parameter values or the expression."]}
    config = ROOT / "tests" / "configs" / "damaris" / "code_saturne.xml"
    expected = [line for line in config.with_suffix(".warnings").read_text().splitlines() if line]
    status, out = run_json(config.name, cwd=config.parent)
    assert status == 0
    assert out["warnings"] == expected
    assert out["configuration"]["dialect"] == "damaris"


def test_sizes_set_at_run_time_in_a_damaris_file_are_not_counted(tmp_path):
    """ROSS's RISA pattern: sizes valued 0 until damaris_parameter_set, type layouts."""
    config = ROOT / "tests" / "configs" / "damaris" / "ross_risa.xml"
    result = run(config.name, cwd=config.parent)
    assert result.returncode == 0, result.stdout
    lines = result.stdout.splitlines()
    assert ("  ross/pes/gvt_inst/nevent_processed: int size set at run time (parameter_set), not "
            "counted; no store") in lines
    assert "  ross/virtual_time: double 1, 8 bytes a block; no store" in lines
    assert "  total: 700 block(s), 4000 bytes (3.91 KiB)" in lines
    status, out = run_json(config.name, cwd=config.parent)
    assert status == 0
    unset = {v["name"]: v for v in out["configuration"]["variables"] if v["size_set_at_run_time"]}
    assert sorted(unset) == ["ross/lps/nevent_processed", "ross/pes/gvt_inst/nevent_processed"]
    assert unset["ross/lps/nevent_processed"]["bytes_per_block"] == 0


def test_strict_refuses_a_file_that_initialize_accepts_with_warnings(tmp_path):
    """A Damaris file's misspelt attribute is ignored with a warning, as Damaris ignores it;
    --strict makes a job script stop on it."""
    config = ROOT / "tests" / "configs" / "damaris" / "code_saturne.xml"
    text = config.read_text().replace('<storage>', '<storage basename=".">', 1)
    assert text != config.read_text()
    path = write(tmp_path, text, "cs.xml")
    relaxed = run(path)
    assert relaxed.returncode == 0, relaxed.stdout
    assert ("unknown attribute 'basename' on <storage> is ignored, as Damaris 1.x ignores "
            "attributes outside its schema. Allowed attributes: comment. Correct its name or "
            "remove it.") in relaxed.stdout
    count = sum(line.startswith("warning: ") for line in relaxed.stdout.splitlines())
    strict = run("--strict", path)
    assert strict.returncode == 1
    assert strict.stdout.splitlines()[-1] == f"{path}: refused under --strict, {count} warning(s)"
    status, out = run_json("--strict", path)
    assert (status, out["valid"], out["strict_passed"]) == (1, True, False)
    assert len(out["warnings"]) == count
    status, out = run_json("--strict", ROOT / "examples" / "simulation.xml")
    assert (status, out["valid"], out["strict_passed"], out["warnings"]) == (0, True, True, [])
    assert run("--strict", ROOT / "examples" / "simulation.xml").returncode == 0


def test_an_ecluse_type_in_a_damaris_file_is_said_to_make_damaris_refuse_it(tmp_path):
    """Damaris 1.x's schema knows no unsigned type: Ecluse reads uint16 in its namespace too,
    says Damaris would refuse the file, and --strict stops on it; Ecluse's own namespace says
    nothing. The variable is described with its type."""
    text = EXAMPLE.replace('type="double"', 'type="uint16"', 1)
    assert text != EXAMPLE
    own = run(write(tmp_path, text, "own.xml"))
    assert own.returncode == 0 and own.stdout.rstrip().endswith("own.xml: valid, 0 warning(s)")
    assert "  temperature: uint16 66 x 50, 6600 bytes (6.45 KiB) a block;" in own.stdout

    def in_damaris_namespace(xml, name):
        return write(tmp_path, xml.replace('xmlns="urn:ecluse:config:1"',
                                           'xmlns="http://damaris.gforge.inria.fr/damaris/model"'),
                     name)

    def warnings(result):
        return [line for line in result.stdout.splitlines() if line.startswith("warning: ")]

    before = run(in_damaris_namespace(EXAMPLE, "double.xml"))  # FilesPath is said there too
    path = in_damaris_namespace(text, "damaris.xml")
    relaxed = run(path)
    assert relaxed.returncode == 0, relaxed.stdout
    assert len(warnings(relaxed)) == len(warnings(before)) + 1
    assert ('type="uint16" is an Ecluse type that Damaris 1.x does not know (it knows char, '
            "character, short, int, integer, long, float, real, double, string, label): Damaris "
            'refuses this file. Ecluse honours it; to keep the file readable by Damaris, write '
            'type="short" (the same 16 bits, read as signed: Damaris has no unsigned types).'
            ) in relaxed.stdout
    assert run("--strict", path).returncode == 1


PYSCRIPT_FILE = """<?xml version="1.0"?>
<simulation name="s" xmlns="http://damaris.gforge.inria.fr/damaris/model">
  <architecture><domains count="1"/><dedicated cores="1" nodes="0"/></architecture>
  <data>
    <layout name="l" type="double" dimensions="4"/>
    <variable name="v" layout="l" script="stats"/>
  </data>
  <actions>
    <event name="dump" action="dump_it" library="{library}"/>
  </actions>
  <scripts>
    <pyscript name="stats" file="stats.py" language="python" frequency="1"/>
  </scripts>
</simulation>
"""


def test_files_initialize_would_not_find_are_warned_from_where_the_check_runs(tmp_path):
    """A <pyscript>'s file and an event library given by a path are opened at initialize, which
    refuses the file when they are missing: the check says so, as warnings (the job may run
    elsewhere), without loading either."""
    library = tmp_path / "lib" / "libdump.so"
    path = write(tmp_path, PYSCRIPT_FILE.format(library=library))
    result = run(path.name, cwd=tmp_path)
    assert result.returncode == 0, result.stdout
    looked = (f" (ecluse-check looked from {tmp_path}; ecluse_initialize refuses the file unless "
              "the job's working directory has it)")
    warnings = [line for line in result.stdout.splitlines() if line.startswith("warning: ")]
    assert warnings == [
        "warning: sim.xml:12:28: cannot read the script file 'stats.py' of <pyscript "
        "name=\"stats\">: No such file or directory (a relative path is taken from the working "
        "directory); fix file= or the file's permissions." + looked,
        f"warning: sim.xml:9:5: event 'dump': cannot read library '{library}' of action "
        "'dump_it': No such file or directory; fix library=" + looked]
    assert result.stdout.splitlines()[-1] == "sim.xml: valid, 2 warning(s)"
    assert run("--strict", path.name, cwd=tmp_path).returncode == 1
    status, out = run_json(path.name, cwd=tmp_path)
    assert (status, [f"warning: {w}" for w in out["warnings"]]) == (0, warnings)
    # Present, nothing is said; a library named without a path is left to the job's loader.
    (tmp_path / "stats.py").write_text("def main(DD):\n    pass\n")
    library.parent.mkdir()
    library.write_bytes(b"not loaded by the check")
    assert run("--strict", path.name, cwd=tmp_path).returncode == 0
    bare = write(tmp_path, PYSCRIPT_FILE.format(library="libdump.so"), "bare.xml")
    assert run("--strict", bare.name, cwd=tmp_path).returncode == 0


OUTPUT = """<simulation name="s" xmlns="urn:ecluse:config:1">
  <architecture><domains count="1"/></architecture>
  <data/>
  <storage>
    <store name="files" type="HDF5"><option key="FilesPath">{path}</option></store>
    <store name="none" type="null"/>
  </storage>
</simulation>
"""


@pytest.mark.parametrize("path, why", [
    ("blocker/out", "made: '{tmp}/blocker' is not a directory"),
    ("{tmp}/blocker/out", "made: '{tmp}/blocker' is not a directory"),
    ("/proc/ecluse-out", "written: '/proc' is on a kernel (proc or sys) file system"),
])
def test_an_output_directory_the_run_could_not_make_is_refused_or_warned(tmp_path, path, why):
    """A relative FilesPath is made from the job's working directory, which may not be the
    check's: warned. An absolute one fails wherever the job runs: refused, as initialize does."""
    (tmp_path / "blocker").write_text("a file where the directory would go")
    path = path.format(tmp=tmp_path)
    result = run(write(tmp_path, OUTPUT.format(path=path)).name, cwd=tmp_path)
    absolute = path.startswith("/")
    relative = ("" if absolute else
                f" (a relative FilesPath, looked at from {tmp_path}: the run makes it from the "
                "job's working directory)")
    kind = "error" if absolute else "warning"
    assert result.returncode == (1 if absolute else 0), result.stdout
    assert [line for line in result.stdout.splitlines()
            if line.startswith(("warning: ", "error: "))] == [
        f"{kind}: sim.xml:5:5: store 'files': FilesPath '{path}' cannot be "
        + why.format(tmp=tmp_path) + "; fix FilesPath or the directory's permissions" + relative]
    assert result.stdout.splitlines()[-1] == (
        "sim.xml: refused, 0 warning(s)" if absolute else "sim.xml: valid, 1 warning(s)")
    # A directory that can be made is not warned about.
    result = run(write(tmp_path, OUTPUT.format(path="new/out")).name, cwd=tmp_path)
    assert not [line for line in result.stdout.splitlines() if line.startswith("warning: ")]
    assert result.stdout.splitlines()[-1] == "sim.xml: valid, 0 warning(s)"
    assert not (tmp_path / "new").exists()


PLACEHOLDER_TOO_BIG = """<?xml version="1.0"?>
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


def test_a_damaris_block_too_large_with_its_parameters_values_is_warned_as_initialize_does(
        tmp_path):
    """A Damaris layout naming parameters is not refused at initialize (damaris_parameter_set may
    shrink it first); with its sizes too large the check said only that the whole iteration did
    not fit, and the run's every write was refused. Now the block is warned by name, here and at
    initialize (test_damaris_sizes.py), word for word."""
    path = write(tmp_path, PLACEHOLDER_TOO_BIG)
    result = run("--ranks", 3, path)
    assert result.returncode == 0, result.stdout
    warning = ("warning: variable 'v' has blocks of 576 bytes of buffer (data and bookkeeping) "
               "with the values its parameters have at initialize, but a client may hold at most "
               "128 bytes: its writes will be refused (ECLUSE_ALLOCATION_ERROR, counted in the run "
               "report) unless damaris_parameter_set makes its blocks smaller first (a layout of "
               "a Damaris file that names parameters is checked at each write, not refused at "
               "initialize); if these are its sizes, raise <buffer size> (now 300 bytes, at "
               f"{path}:4:5) to at least ")
    assert warning in result.stdout, result.stdout


PLACEMENT = """<simulation name="s" xmlns="{ns}">
  <architecture><domains count="1"/>
    <dedicated cores="4" nodes="0"/>
    <placement mask="0001"/>
  </architecture>
  <data><layout name="l" type="int" dimensions="4"/><variable name="v" layout="l" store="s"/></data>
  <storage><store name="s" type="null"/></storage>
</simulation>
"""
DAMARIS_NS = "http://damaris.gforge.inria.fr/damaris/model"


def test_a_damaris_mask_that_does_not_fit_falls_back_to_damaris_placement(tmp_path):
    """Damaris's test/placement_loc_4dc_s0_s0_b0_m0001.xml on 8-rank nodes: Damaris 1.x ignores
    the mask (its dedicated cores are the last local ranks); an Ecluse file is refused."""
    path = write(tmp_path, PLACEMENT.format(ns=DAMARIS_NS))
    result = run("--ranks", 8, "--ranks-per-node", 8, path)
    assert result.returncode == 0, result.stdout
    assert (f"warning: {path}:4:5: node 0: <placement mask=\"0001\"> marks 2 of its 8 ranks as "
            "dedicated cores, but <dedicated cores=\"4\"/> needs 4. Damaris 1.x ignores the "
            "mask, so its placement is used: the last 4 local ranks (4-7) are the dedicated "
            "cores. Nodes of at least 16 ranks would satisfy the mask; remove mask= to keep "
            "Damaris's placement silently.\n") in result.stdout
    assert "1 node(s) of 8 ranks: dedicated cores at local rank(s) 4,5,6,7" in result.stdout
    fits = run("--ranks", 16, "--ranks-per-node", 16, path)
    assert "dedicated cores at local rank(s) 3,7,11,15" in fits.stdout
    assert "Damaris 1.x ignores the mask" not in fits.stdout
    ecluse = write(tmp_path, PLACEMENT.format(ns="urn:ecluse:config:1"), "e.xml")
    refused = run("--ranks", 8, "--ranks-per-node", 8, ecluse)
    assert refused.returncode == 1
    assert (f"error: {ecluse}:4:5: node 0: <placement mask=\"0001\"> marks 2 of its 8 ranks as "
            "dedicated cores, but <dedicated cores=\"4\"/> needs 4; put a 1 for each dedicated "
            "core.\n") in refused.stdout


def test_clients_that_damaris_would_refuse_to_divide_are_noted_in_a_damaris_file(tmp_path):
    """Damaris 1.x aborts when a node's dedicated cores do not divide its clients; Ecluse
    spreads them. Noted (not warned: --strict passes) for a file kept for both."""
    text = PLACEMENT.replace('    <placement mask="0001"/>\n', "")
    path = write(tmp_path, text.format(ns=DAMARIS_NS))
    result = run("--strict", "--ranks", 10, "--ranks-per-node", 10, path)
    assert result.returncode == 0, result.stdout
    note = (f"{path}:3:5: Damaris 1.x would refuse nodes of 10 ranks (\"The number of dedicated "
            "cores in a node does not divide the number of clients\": 6 clients for <dedicated "
            "cores=\"4\"/>); Ecluse accepts them and gives each dedicated core 1 or 2 clients. "
            "To run this file with Damaris too, use a multiple of 4 ranks per node")
    assert f"    note: {note}\n" in result.stdout
    status, out = run_json("--ranks", 10, "--ranks-per-node", 10, path)
    assert out["configuration"]["placement"]["node_sizes"][0]["damaris_note"] == note
    assert "note:" not in run("--ranks", 8, "--ranks-per-node", 8, path).stdout
    ecluse = write(tmp_path, text.format(ns="urn:ecluse:config:1"), "e.xml")
    assert "note:" not in run("--ranks", 10, "--ranks-per-node", 10, ecluse).stdout


TEMPLATE = """<simulation name="s" xmlns="http://damaris.gforge.inria.fr/damaris/model">
  <architecture><domains count="1"/>
    <dedicated cores="_DC_REGEX_" nodes="_DN_REGEX_"/>
    <buffer name="b" size="_SHMEM_BUFFER_BYTES_REGEX_"/>
  </architecture>
  <data/>
</simulation>
"""


def test_each_error_is_its_own_line_and_json_entry(tmp_path):
    """OPM's template before it is filled in: one error line and one JSON entry per error
    (docs/check.md), each naming the unfilled placeholder."""
    path = write(tmp_path, TEMPLATE)
    hint = ("looks like a template placeholder left unfilled: give the file its template "
            "generates, or put the value in its place.")
    expected = [
        f"{path}:3:16: invalid value '_DC_REGEX_' for 'cores' on <dedicated>; expected an "
        f"integer >= 0. '_DC_REGEX_' {hint}",
        f"{path}:3:35: invalid value '_DN_REGEX_' for 'nodes' on <dedicated>; expected an "
        f"integer >= 0. '_DN_REGEX_' {hint}",
        f"{path}:4:22: invalid value '_SHMEM_BUFFER_BYTES_REGEX_' for 'size' on <buffer>; "
        "expected a positive size in bytes, optionally followed by a unit (B, K, KB, M, MB, G, "
        "GB, KiB, MiB, GiB or TiB), e.g. 67108864 or 64MiB. '_SHMEM_BUFFER_BYTES_REGEX_' "
        f"{hint}"]
    result = run(path)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [f"error: {e}" for e in expected] + [f"{path}: refused"]
    status, out = run_json(path)
    assert status == 1 and out["errors"] == expected
