"""The Python binding (ecluse.Session over ecluse._native) under mpiexec: each test writes a small
script into its own temporary directory, runs it on 1 to 3 ranks, and checks what it reports."""
import json
import os
import pathlib
import re
import subprocess
import sys
import textwrap
import time

import pytest

from mpirun import child_env, mpiexec

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("ECLUSE_BUILD", ROOT / "build"))

pytestmark = pytest.mark.skipif(
    not list((BUILD / "python" / "ecluse").glob("_native*.so")),
    reason=f"the native module was not built in {BUILD} (needs nanobind in the venv)")

CONFIG = """<simulation name="bind" xmlns="urn:ecluse:config:1">
  <architecture><domains count="DOMAINS"/>ARCHITECTURE<buffer size="4MiB"/></architecture>
  <data>
    <parameter name="N" type="int" value="6"/>
    <parameter name="BIG" type="long" value="5000000000"/>
    <parameter name="ALPHA" type="double" value="0.25"/>
    <parameter name="LABEL" type="string" value="first run"/>
    <layout name="grid" type="double" dimensions="N,4"/>
    <layout name="counts" type="int" dimensions="3"/>
    <layout name="fgrid" type="float" dimensions="2,3" language="fortran"/>
    <variable name="field" layout="grid"/>
    <variable name="other" layout="grid"/>
    <variable name="counts" layout="counts"/>
    <variable name="f" layout="fgrid"/>
  </data>
  <storage><store name="files" type="HDF5"><option key="FilesPath">out</option></store></storage>
  <actions><event name="ping" action="no_such_function" execution="local"/>
    <event name="stored" action="no_such_function"/></actions>
  <log LogLevel="warning"/>
</simulation>
"""
TP = '<dedicated cores="0" nodes="0"/>'
DC = '<dedicated cores="1" nodes="0"/><virtual-nodes ranks-per-node="3"/>'

# Every script starts with this: the configuration, and `report(**values)`, which prints one
# JSON line per rank for the test to read.
PRELUDE = """
import json, sys
import numpy as np
from mpi4py import MPI
import ecluse
XML = open("bind.xml").read()
def report(**values):
    print("RESULT " + json.dumps(dict(values, rank=MPI.COMM_WORLD.Get_rank())), flush=True)
def error_of(call, *args):
    try:
        call(*args)
    except ecluse.Error as e:
        return [e.status, e.code, e.message]
    return None
"""




def run_script(tmp_path, ranks, body, architecture=TP, domains=1):
    text = CONFIG.replace("ARCHITECTURE", architecture).replace("DOMAINS", str(domains))
    (tmp_path / "bind.xml").write_text(text)
    (tmp_path / "script.py").write_text(PRELUDE + textwrap.dedent(body))
    result = subprocess.run([mpiexec(), "-n", str(ranks), sys.executable, "script.py"],
                            cwd=tmp_path, env=child_env(), capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return sorted(results(result.stdout), key=lambda r: r["rank"])


def results(stdout):
    """The RESULT lines' JSON; other ranks' output may share a line (mpiexec interleaves)."""
    decoder = json.JSONDecoder()
    found = []
    for piece in stdout.split("RESULT ")[1:]:  # two ranks' lines may even share a line
        found.append(decoder.raw_decode(piece)[0])
    return found


WRITE_ERRORS = """
s = ecluse.Session("bind.xml")
assert s.is_client
field = np.zeros((6, 4))
errors = dict(
    dtype=error_of(s.write, "field", field.astype(np.float32)),
    shape=error_of(s.write, "field", np.zeros((4, 6))),
    ndim=error_of(s.write, "field", np.zeros(24)),
    strided=error_of(s.write, "field", np.zeros((6, 8), dtype=np.float32)[:, ::2]),
    not_array=error_of(s.write, "field", [[0.0] * 4] * 6),
    none=error_of(s.write, "field", None),
    big_endian=error_of(s.write, "field", field.astype(">f8")),
    unknown=error_of(s.write, "feild", field),
    block=error_of(s.write, "field", field, 3),
    fortran=error_of(s.write, "f", np.zeros((2, 3), dtype=np.float32)),
    position=error_of(s.set_position, "field", (1,)),
    position_type=error_of(s.set_position, "field", (1.5, 0)),
    position_negative=error_of(s.set_position, "field", (0, -2)),
    commit=error_of(s.commit, "field"),
    event=error_of(s.signal, "pong"),
    action=error_of(s.signal, "ping"),
    bind=error_of(s.bind, "ping", 42),
)
s.end_iteration()
s.close()
report(**errors)
"""


def test_bad_writes_raise_the_c_api_message_and_write_nothing(tmp_path):
    (r,) = run_script(tmp_path, 1, WRITE_ERRORS)
    layout = "its layout 'grid' takes a float64 array of shape (6, 4), got"
    assert r["dtype"] == ["ECLUSE_ARGUMENT_ERROR", 7, "write of variable 'field': " + layout +
                          " a float32 array of shape (6, 4); nothing was written."]
    assert r["shape"] == ["ECLUSE_INVALID_DIMENSIONS", 18, "write of variable 'field': " + layout +
                          " a float64 array of shape (4, 6); nothing was written. Its shape is the "
                          "expected one reversed: NumPy arrays are in C order (where a layout "
                          "with language=\"fortran\" has its declared dimensions reversed); pass "
                          "array.T if it is in Fortran order."]
    assert r["ndim"][2] == ("write of variable 'field': " + layout +
                            " a float64 array of shape (24,); nothing was written.")
    # A slice is made contiguous first (test_slices_are_written_as_their_values), then checked.
    assert r["strided"] == ["ECLUSE_ARGUMENT_ERROR", 7, "write of variable 'field': " + layout +
                            " a float32 array of shape (6, 4); nothing was written."]
    assert r["not_array"] == ["ECLUSE_ARGUMENT_ERROR", 7, "write of variable 'field': " + layout +
                              " a list; nothing was written. Pass a numpy.ndarray in native "
                              "byte order (np.ascontiguousarray(a) makes one)."]
    assert r["none"][2].endswith(" got a NoneType; nothing was written. Pass a numpy.ndarray in "
                                 "native byte order (np.ascontiguousarray(a) makes one).")
    assert r["big_endian"][2] == ("write of variable 'field': " + layout + " a >f8 array of shape "
                                  "(6, 4); nothing was written. Pass a numpy.ndarray in native "
                                  "byte order (np.ascontiguousarray(a) makes one).")
    assert r["unknown"] == ["ECLUSE_UNDEFINED_VARIABLE", 16,
                            "variable 'feild' is not declared in bind.xml; did you mean 'field'? "
                            "Declare it with <variable name=\"feild\" layout=\"...\"/>."]
    assert r["block"] == ["ECLUSE_INVALID_BLOCK", 17, "block 3 of variable 'field' is out of "
                          "range: <domains count=\"1\"/> allows blocks 0 to 0."]
    # language="fortran": declared 2,3, so a C-order array is (3, 2).
    assert r["fortran"][0] == "ECLUSE_INVALID_DIMENSIONS"
    assert "takes a float32 array of shape (3, 2), got a float32 array of shape " \
           "(2, 3)" in r["fortran"][2]
    assert r["position"] == ["ECLUSE_ARGUMENT_ERROR", 7, "position of variable 'field' has 1 "
                             "values but its layout has 2 dimensions."]
    assert r["position_type"] == ["ECLUSE_ARGUMENT_ERROR", 7, "position of variable 'field' must "
                                  "be a sequence of whole numbers, got (1.5, 0)."]
    assert r["commit"][0] == "ECLUSE_BLOCK_NOT_FOUND"
    assert r["event"][0] == "ECLUSE_UNDEFINED_ACTION" and "'pong' is not declared" in r["event"][2]
    assert r["action"][0] == "ECLUSE_BIND_ERROR"
    assert "function 'no_such_function' not found" in r["action"][2]
    assert r["bind"] == ["ECLUSE_BIND_ERROR", 21, "bind of event 'ping': int is not callable."]
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").glob("*.h5"))
    assert r["position_negative"] == [
        "ECLUSE_ARGUMENT_ERROR", 7, "position of variable 'field': offset -2 in dimension 1 is "
        "negative; a position is the global index (from 0) of the block's first interior cell."]


def test_calls_after_close_and_broken_configurations_raise(tmp_path):
    body = """
    s = ecluse.Session(XML)            # XML text, not a path
    s.close()
    report(after=error_of(s.write, "field", np.zeros((6, 4))),
           again=error_of(s.close),
           broken=error_of(ecluse.Session, XML.replace('dimensions="N,4"', 'dimensions="N/0,4"')),
           missing=error_of(ecluse.Session, "no-such.xml"),
           comm=error_of(ecluse.Session, "bind.xml", "not a communicator"))
    """
    (r,) = run_script(tmp_path, 1, body)
    assert r["after"] == ["ECLUSE_NOT_INITIALIZED", 12, "Ecluse is not initialized; call "
                          "ecluse_initialize first (or it was finalized)."]
    assert r["again"] is None
    assert r["broken"][0] == "ECLUSE_CONFIG_ERROR"
    assert "layout 'grid': dimension 1 \"N/0\": division by zero (N=6)" in r["broken"][2]
    assert r["missing"][0] in ("ECLUSE_CONFIG_ERROR", "ECLUSE_INIT_ERROR")
    assert "no-such.xml" in r["missing"][2]
    assert r["comm"] == ["ECLUSE_ARGUMENT_ERROR", 7, "comm must be an mpi4py communicator "
                         "(MPI.Comm), not str."]


def test_an_exception_in_an_action_comes_out_of_signal(tmp_path):
    body = """
    with ecluse.Session("bind.xml") as s:
        seen = []
        def action(event, source, iteration, args):
            seen.append((event, source, iteration))
            if len(seen) == 2:
                raise ValueError("from the action")
        s.bind("ping", action)
        s.signal("ping")
        s.end_iteration()
        try:
            s.signal("ping")
            raised = None
        except ValueError as e:
            raised = str(e)
        report(seen=seen, raised=raised, iteration=s.iteration)
    """
    (r,) = run_script(tmp_path, 1, body)
    assert r["seen"] == [["ping", 0, 0], ["ping", 0, 1]]
    assert r["raised"] == "from the action"
    assert r["iteration"] == 1


def test_context_manager_stops_and_finalizes_on_every_rank(tmp_path):
    body = """
    for round in range(2):                       # a second session proves the first finalized
        try:
            with ecluse.Session("bind.xml") as s:
                if s.is_client:
                    comm = s.client_comm
                    s.write("counts", np.array([round, comm.Get_rank(), comm.Get_size()],
                                               dtype=np.int32))
                    s.end_iteration()
                    if round == 1:
                        raise KeyError("leaves the block")
        except KeyError as e:
            report(round=round, raised=str(e), client=s.is_client, size=comm.Get_size())
        else:
            report(round=round, client=s.is_client)
    """
    reports = run_script(tmp_path, 3, body, architecture=DC)
    assert [r["round"] for r in reports] == [0, 1] * 3
    raised = [r for r in reports if "raised" in r]
    assert [r["rank"] for r in raised] == [0, 1], "clients are ranks 0 and 1 (servers last)"
    assert all(r["size"] == 2 and r["raised"] == "'leaves the block'" for r in raised)
    assert [r["client"] for r in reports if r["rank"] == 2] == [False, False]


@pytest.mark.parametrize("architecture", [TP, DC], ids=["tp", "dc"])
def test_an_exception_on_one_client_ends_the_job_with_its_traceback(tmp_path, architecture):
    """One client leaves its block by an exception while the other waits for it (a halo
    exchange): the collective finalize could never complete. After ECLUSE_EXCEPTION_WAIT the
    client says why, with its traceback, and ends the job, instead of hanging until
    ECLUSE_TIMEOUT (600 s by default)."""
    body = """
    with ecluse.Session("bind.xml") as s:
        if s.is_client:
            comm = s.client_comm
            if comm.Get_rank() == 1:
                raise ZeroDivisionError("the step diverged")
            comm.recv(source=1)  # the halo exchange the other client never makes
    """
    text = CONFIG.replace("ARCHITECTURE", architecture).replace("DOMAINS", "1")
    (tmp_path / "bind.xml").write_text(text)
    (tmp_path / "script.py").write_text(PRELUDE + textwrap.dedent(body))
    start = time.monotonic()
    result = subprocess.run([mpiexec(), "-n", "2" if architecture == TP else "3",
                             sys.executable, "script.py"], cwd=tmp_path,
                            env=dict(child_env(), ECLUSE_EXCEPTION_WAIT="2"),
                            capture_output=True, text=True, timeout=120)
    elapsed = time.monotonic() - start
    assert result.returncode != 0
    assert ("ecluse: world rank 1: an exception left the Session block while other clients are "
            "still in theirs; ending the job (MPI_Abort), since the collective finalize cannot "
            "complete without this rank:") in result.stderr, result.stderr
    assert "ZeroDivisionError: the step diverged" in result.stderr, result.stderr
    assert elapsed < 60, f"{elapsed:.1f} s"


def test_dedicated_core_statistics_and_client_comm(tmp_path):
    body = """
    s = ecluse.Session("bind.xml")
    if s.is_client:
        for it in range(3):
            s.write("field", np.full((6, 4), float(it)))
            s.end_iteration()
        s.stop()
        report(size=s.client_comm.Get_size(), blocks=s.statistic("dc.sent_blocks"),
               bytes=s.statistic("dc.sent_bytes"), unknown=error_of(s.statistic, "dc.nothing"))
    else:
        report(server=error_of(s.write, "field", np.zeros((6, 4))),
               null=s.client_comm == MPI.COMM_NULL)
    s.close()
    """
    client, server = run_script(tmp_path, 2, body, architecture=DC.replace('"3"', '"2"'))
    assert client["size"] == 1 and client["blocks"] == 3 and client["bytes"] == 3 * 6 * 4 * 8
    assert client["unknown"][0] == "ECLUSE_ARGUMENT_ERROR"
    assert client["unknown"][2].startswith("no statistic named 'dc.nothing' on this rank; known: ")
    assert "dc.sent_blocks" in client["unknown"][2]
    assert server["server"][0] == "ECLUSE_CORE_IS_SERVER" and server["null"]


ZERO_COPY = """
import h5py, glob
def mapping_of(address):
    for line in open("/proc/self/maps"):
        span, rest = line.split(" ", 1)
        lo, hi = (int(x, 16) for x in span.split("-"))
        if lo <= address < hi:
            fields = rest.split(None, 4)
            return fields[4].strip() if len(fields) > 4 else "anonymous"
with ecluse.Session("bind.xml") as s:
    if s.is_client:
        a, b = s.alloc("field"), s.alloc("other")
        pa, pb = (x.__array_interface__["data"][0] for x in (a, b))
        a[...] = np.arange(24.0).reshape(6, 4)
        b[...] = -a
        back = a.copy()
        s.commit("field")
        s.commit("other")
        c = s.alloc("counts")
        c[...] = [7, 8, 9]
        s.clear("counts")
        s.end_iteration()
        report(distinct=pa != pb, owndata=[a.flags.owndata, b.flags.owndata],
               shape=[list(a.shape), a.dtype.str], writeable=[a.flags.writeable,
               c.flags.writeable], mapping=mapping_of(pa), back=back.tolist(),
               write_after=error_of(s.commit, "field"))
"""


@pytest.mark.parametrize("architecture", ["tp", "dc"])
def test_alloc_views_the_buffer_and_commit_stores_what_was_written(tmp_path, architecture):
    import h5py
    import numpy as np
    config = {"tp": TP, "dc": DC.replace('"3"', '"2"')}[architecture]
    (r,) = run_script(tmp_path, 1 if architecture == "tp" else 2, ZERO_COPY, config)
    assert r["distinct"] and r["owndata"] == [False, False]
    assert r["shape"] == [[6, 4], "<f8"]
    assert r["writeable"] == [False, False], "views turn read-only at commit and clear"
    if architecture == "dc":
        assert r["mapping"].startswith("/memfd:ecluse-"), r["mapping"]  # the node segment
    assert r["write_after"][0] == "ECLUSE_BLOCK_NOT_FOUND"
    (path,) = (tmp_path / "out").glob("bind_It0_Pr*.h5")
    with h5py.File(path, "r") as f:
        field = f["field/P0"][...]
        np.testing.assert_array_equal(field, np.arange(24.0).reshape(6, 4))
        np.testing.assert_array_equal(f["other/P0"][...], -field)
        assert "counts" not in f, "a cleared block is not stored"
    assert r["back"] == field.tolist()


ALLOCATION_LIFE = """
import h5py
with ecluse.Session("bind.xml") as s:
    if s.is_client:
        a = s.alloc("field")
        a[...] = 1.0
        twice = error_of(s.write, "field", np.zeros((6, 4)))  # the block is allocated
        s.end_iteration()                       # never committed: dropped
        dropped_view = a.flags.writeable
        late = error_of(s.commit, "field")      # the allocation of the ended iteration
        b = s.alloc("field")
        b[...] = 2.0
        c = s.alloc("field")                    # allocated again: b no longer owns the room
        c[...] = 3.0
        s.commit("field")
        again = error_of(s.commit, "field")      # committed already: said so, data kept
        s.end_iteration()
        s.stop()
        report(twice=twice, dropped_view=dropped_view, late=late, again=again,
               again_view=b.flags.writeable, dropped=s.statistic("client.dropped_allocations"))
"""


@pytest.mark.parametrize("architecture", ["tp", "dc", "dn"])
def test_an_allocation_lives_for_its_iteration(tmp_path, architecture):
    """A block allocated and not committed is dropped when its iteration ends (its view turns
    read-only; a later commit finds nothing; the run counts it), a write of an allocated block
    is refused, and a second alloc of a block retires the first view."""
    import h5py
    import numpy as np
    config = {"tp": TP, "dc": DC.replace('"3"', '"2"'),
              "dn": '<dedicated cores="0" nodes="1"/><virtual-nodes ranks-per-node="1"/>'}
    (r,) = run_script(tmp_path, 1 if architecture == "tp" else 2, ALLOCATION_LIFE,
                      config[architecture])
    assert r["twice"] == [
        "ECLUSE_ARGUMENT_ERROR", 7,
        "write of block 0 of variable 'field': the block is allocated (ecluse_alloc) and not "
        "committed; fill it and commit it, or clear it before writing the block."]
    assert r["dropped_view"] is False and r["again_view"] is False
    assert r["late"] == [
        "ECLUSE_BLOCK_NOT_FOUND", r["late"][1],
        "commit of block 0 of variable 'field': nothing is allocated in this iteration (a block "
        "allocated and not committed is dropped when its iteration ends); call alloc first."]
    assert r["again"] == [
        "ECLUSE_BLOCK_NOT_FOUND", r["late"][1],
        "commit of block 0 of variable 'field': the block was already handed over in iteration 1 "
        "(committed or written); its data is on its way to be stored. Commit a block once per "
        "iteration; alloc it again after ecluse_end_iteration."]
    assert r["dropped"] == 1.0
    assert not list((tmp_path / "out").glob("bind_It0_*.h5")), "iteration 0 stored nothing"
    (path,) = (tmp_path / "out").glob("bind_It1_Pr*.h5")
    with h5py.File(path, "r") as f:
        np.testing.assert_array_equal(f["field/P0"][...], np.full((6, 4), 3.0))


KEPT_AFTER_CLOSE = """
client = False
with ecluse.Session("bind.xml") as s:
    if s.is_client:
        client = True
        kept = []
        for step in range(2):
            v = s.alloc("field")
            v[...] = step + 1.0
            s.commit("field")
            kept.append(v)
            s.end_iteration()
        kept.append(s.alloc("field"))           # never committed: dropped at close
        kept[-1][...] = 9.0
if client:
    sums = [float(view.sum()) for view in kept]   # the memory may be unmapped by now
    forced = None
    if FORCE:  # only where the memory was unmapped: freed heap memory must not be written
        kept[0].setflags(write=True)
        kept[0][...] = 5.0                        # a caller that forces its way in
        forced = float(kept[0].sum())
    report(sums=sums, writeable=[view.flags.writeable for view in kept[1:]], forced=forced)
"""


@pytest.mark.parametrize("architecture", ["tp", "dc", "dn"])
def test_views_kept_past_close_never_crash(tmp_path, architecture):
    """A view kept after close reads zeros where its memory was unmapped (the node segment of DC)
    or stale bytes, and never faults; what was committed is stored."""
    import h5py
    import numpy as np
    config = {"tp": TP, "dc": DC.replace('"3"', '"2"'),
              "dn": '<dedicated cores="0" nodes="1"/><virtual-nodes ranks-per-node="1"/>'}
    force = architecture == "dc"  # the node segment is unmapped; TP/DN blocks go to the heap
    (r,) = run_script(tmp_path, 1 if architecture == "tp" else 2,
                      f"FORCE = {force}\n" + KEPT_AFTER_CLOSE, config[architecture])
    assert r["writeable"] == [False, False]
    assert r["forced"] == (5.0 * 24 if force else None)
    if architecture == "dc":
        assert r["sums"] == [0.0, 0.0, 0.0], "the segment is gone: zero pages in its place"
    for step in range(2):
        (path,) = (tmp_path / "out").glob(f"bind_It{step}_Pr*.h5")
        with h5py.File(path, "r") as f:
            np.testing.assert_array_equal(f["field/P0"][...], np.full((6, 4), step + 1.0))
    assert not list((tmp_path / "out").glob("bind_It2_*.h5")), "the last alloc was dropped"


FORGOTTEN_END = """
with ecluse.Session("bind.xml") as s:
    if s.is_client:
        s.write("field", np.full((6, 4), 1.0))
        s.end_iteration()
        s.write("field", np.full((6, 4), 2.0))  # no end_iteration after the last writes
"""


@pytest.mark.parametrize("architecture", ["tp", "dc", "dn"])
def test_an_iteration_not_ended_is_stored_counted_and_said(tmp_path, architecture):
    """The last iteration without end_iteration is stored, the client says so, and the report
    counts it (under DC and DN it counted only the ended ones: '1 of 1 iteration(s) wrote')."""
    import h5py
    import numpy as np
    config = {"tp": TP, "dc": DC.replace('"3"', '"2"'),
              "dn": '<dedicated cores="0" nodes="1"/><virtual-nodes ranks-per-node="1"/>'}
    (tmp_path / "bind.xml").write_text(CONFIG.replace("ARCHITECTURE", config[architecture])
                                       .replace("DOMAINS", "1"))
    (tmp_path / "script.py").write_text(PRELUDE + textwrap.dedent(FORGOTTEN_END))
    ranks = 1 if architecture == "tp" else 2
    result = subprocess.run([mpiexec(), "-n", str(ranks), sys.executable, "script.py"],
                            cwd=tmp_path, env=child_env(), capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert ("[ecluse 0] warning: iteration 1 was not ended (no end_iteration after its writes); "
            "storing it as it is. Call end_iteration after the last writes.") in result.stderr
    assert "were not ended by every client" not in result.stderr
    for step in range(2):
        (path,) = (tmp_path / "out").glob(f"bind_It{step}_Pr*.h5")
        with h5py.File(path, "r") as f:
            np.testing.assert_array_equal(f["field/P0"][...], np.full((6, 4), step + 1.0))
    iterations = json.loads((tmp_path / "bind-report.json").read_text())["iterations"]
    assert iterations["count"] == 2 and iterations["outputs"]["count"] == 2
    assert iterations["client_bytes"]["sum"] == 2 * 6 * 4 * 8
    assert "(2 of 2 iteration(s) wrote)" in result.stdout


def run_plain(tmp_path, ranks, xml, body):
    """`body` (after PRELUDE) on `ranks` ranks with configuration `xml`: the finished process."""
    (tmp_path / "bind.xml").write_text(xml)
    (tmp_path / "script.py").write_text(PRELUDE + textwrap.dedent(body))
    return subprocess.run([mpiexec(), "-n", str(ranks), sys.executable, "script.py"],
                          cwd=tmp_path, env=child_env(), capture_output=True, text=True,
                          timeout=120)


COLLECTIVE = """<simulation name="bind" xmlns="urn:ecluse:config:1">
  <architecture><domains count="1"/><dedicated cores="0" nodes="0"/></architecture>
  <data><layout name="row" type="int" dimensions="4" global="4"/>
    <variable name="v" layout="row" store="shared"/></data>
  <storage><store name="shared" type="HDF5"><option key="FileMode">Collective</option>
    <option key="FilesPath">out</option></store></storage>
  <log LogLevel="warning"/>
</simulation>
"""

FAILED_THEN_FINE = """
with ecluse.Session("bind.xml") as s:
    s.set_position("v", (2,))                      # half out of the global array
    s.write("v", np.arange(4, dtype=np.int32))
    failed = error_of(s.end_iteration)
    s.set_position("v", (0,))
    for step in (1, 2):
        s.write("v", np.full(4, step, dtype=np.int32))
        s.end_iteration()
    s.stop()
    after_stop = error_of(s.end_iteration)
    report(failed=failed, after_stop=after_stop)
"""


def test_a_failed_iteration_is_counted_and_end_iteration_after_stop_is_refused(tmp_path):
    """TP: an iteration whose store failed is still one the report counts (it was left out,
    and its bytes went to the next iteration's sample); end_iteration after stop is refused
    as a write is (it returned OK and counted an iteration)."""
    result = run_plain(tmp_path, 1, COLLECTIVE, FAILED_THEN_FINE)
    assert result.returncode == 0, result.stderr  # TP: told at the end_iteration that failed
    (r,) = results(result.stdout)
    assert r["failed"][0] == "ECLUSE_DATASPACE_ERROR", r["failed"]
    assert r["after_stop"] == ["ECLUSE_ARGUMENT_ERROR", 7, "this client already called stop; no "
                               "more writes until start opens a new phase."]
    iterations = json.loads((tmp_path / "bind-report.json").read_text())["iterations"]
    assert (iterations["count"], iterations["first"], iterations["last"]) == (3, 0, 2)
    assert iterations["client_bytes"]["count"] == 3
    assert iterations["client_bytes"]["max"] == iterations["client_bytes"]["min"] == 16
    assert iterations["failed_iterations"] == {"count": 1, "first": 0, "last": 0}


TOO_MANY_BLOCKS = CONFIG.replace('<buffer size="4MiB"/>', '<buffer size="1MiB"/>').replace(
    '<layout name="counts" type="int" dimensions="3"/>',
    '<layout name="counts" type="int" dimensions="40000"/>')


def test_an_iteration_larger_than_a_clients_share_is_warned_at_initialize(tmp_path):
    """8 domains of a 160 kB variable cannot all be held by a client of a 1 MiB buffer: said at
    initialize (each block alone fits, so nothing is refused there)."""
    xml = TOO_MANY_BLOCKS.replace("ARCHITECTURE", DC.replace('"3"', '"2"')).replace(
        "DOMAINS", "8")
    result = run_plain(tmp_path, 2, xml, 'with ecluse.Session("bind.xml") as s:\n    pass\n')
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(
        r"warning: an iteration that writes all 32 blocks of this client \(every variable, "
        r"every domain\) needs (\d+) bytes of buffer \(data and bookkeeping\) but a client may "
        r"hold at most (\d+) bytes, and the server frees an iteration only once it ends: the "
        r"writes of such an iteration past that would be refused \(ECLUSE_ALLOCATION_ERROR\); "
        r"raise <buffer size> \(now 1048576 bytes \(1\.00 MiB\), at bind\.xml:2:\d+\) to at "
        r"least (\d+) bytes \(\d+\.\d+ MiB\), or write fewer blocks per iteration\.",
        result.stderr), result.stderr


SKIPPED_CONSTANT = """<simulation name="bind" xmlns="urn:ecluse:config:1">
  <architecture><domains count="1"/>ARCHITECTURE<buffer size="1100" policy="skip"/></architecture>
  <data><layout name="a" type="double" dimensions="100"/><layout name="c" type="int" dimensions="100"/>
    <variable name="a" layout="a"/><variable name="c" layout="c" time-varying="false"/></data>
  <storage><store name="files" type="HDF5"><option key="FilesPath">out</option></store></storage>
  <log LogLevel="warning"/>
</simulation>
"""

WRITE_SKIPPED_CONSTANT = """
import time
with ecluse.Session("bind.xml") as s:
    if s.is_client:
        s.write("a", np.full(100, 1.0))
        s.write("c", np.arange(100, dtype=np.int32))      # no room left: skipped
        s.end_iteration()
        time.sleep(0.5)                                    # iteration 0 stored, room again
        s.write("c", np.arange(100, dtype=np.int32) + 7)  # first handed over: stored once
        s.write("a", np.full(100, 2.0))                    # no room left: skipped
        s.end_iteration()
        time.sleep(0.5)
        s.write("c", np.arange(100, dtype=np.int32) + 9)  # constant, handed over already
        s.write("a", np.full(100, 3.0))
        s.end_iteration()
"""


@pytest.mark.parametrize("architecture", [DC.replace('"3"', '"2"'),
                                          '<dedicated cores="0" nodes="1"/>'
                                          '<virtual-nodes ranks-per-node="1"/>'])
def test_a_constant_variable_whose_write_was_skipped_is_written_at_its_next_write(
        tmp_path, architecture):
    """policy="skip" drops a write that finds no room; a constant (time-varying="false")
    variable whose first write was dropped is still written once, at its next write."""
    import h5py
    result = run_plain(tmp_path, 2, SKIPPED_CONSTANT.replace("ARCHITECTURE", architecture),
                       WRITE_SKIPPED_CONSTANT)
    assert result.returncode == 0, result.stdout + result.stderr
    stored = {}
    for it in range(3):
        (path,) = (tmp_path / "out").glob(f"bind_It{it}_Pr*.h5")
        with h5py.File(path, "r") as f:
            stored[it] = {name: f[name]["P0"][()] for name in f}
    assert sorted(stored[0]) == ["a"] and list(stored[0]["a"]) == [1.0] * 100
    assert sorted(stored[1]) == ["c"] and list(stored[1]["c"]) == list(range(7, 107))
    assert sorted(stored[2]) == ["a"] and list(stored[2]["a"]) == [3.0] * 100


FAILING_STORES = """<simulation name="bind" xmlns="urn:ecluse:config:1">
  <architecture><domains count="1"/>ARCHITECTURE</architecture>
  <data><layout name="l" type="int" dimensions="4"/><variable name="v" layout="l"/></data>
  <storage><store name="files" type="HDF5"><option key="FilesPath">out</option>
    <option key="FileName">It{iteration}/{simulation}_Pr{writer}.h5</option></store></storage>
  <log LogLevel="error"/>
</simulation>
"""

WRITE_THROUGH_FAILURES = """
import os, time
if MPI.COMM_WORLD.Get_rank() == 0:
    os.makedirs("out")
    for it in (1, 3):                       # a file where the iteration's directory goes
        open(f"out/It{it}", "w").close()
MPI.COMM_WORLD.Barrier()
raised, final = [], None
try:
    with ecluse.Session("bind.xml") as s:
        if s.is_client:
            for it in range(4):
                s.write("v", np.full(4, it, dtype=np.int32))
                error = error_of(s.end_iteration)
                if error:
                    raised.append([it] + error[:2])
                time.sleep(0.4)             # the server stores (or fails) the iteration
except ecluse.Error as e:
    final = [e.status, e.code]
report(raised=raised, final=final)
"""


@pytest.mark.parametrize("architecture", [DC.replace('"3"', '"2"'),
                                          '<dedicated cores="0" nodes="1"/>'
                                          '<virtual-nodes ranks-per-node="1"/>'])
def test_a_store_failure_after_the_last_call_reaches_the_client_at_finalize(tmp_path,
                                                                            architecture):
    """Iterations 1 and 3 cannot be stored. The client hears of the first at a later
    end_iteration; the last one fails after its last end_iteration, and finalize says so,
    although the client was told of a failure already (no write lost without an error)."""
    result = run_plain(tmp_path, 2, FAILING_STORES.replace("ARCHITECTURE", architecture),
                       WRITE_THROUGH_FAILURES)
    assert result.returncode == 0, result.stdout + result.stderr
    client, server = sorted(results(result.stdout), key=lambda r: r["rank"])
    assert client["raised"] == [[2, "ECLUSE_IO_ERROR", 23]]
    assert client["final"] == ["ECLUSE_IO_ERROR", 23]
    assert server["final"] == ["ECLUSE_IO_ERROR", 23]
    assert sorted(str(p.relative_to(tmp_path / "out")) for p in (tmp_path / "out").glob(
        "It*/*.h5")) == ["It0/bind_Pr0.h5", "It2/bind_Pr0.h5"]


STOP_EARLY = """
import os, time
with ecluse.Session("bind.xml") as s:
    if s.is_client:
        source = s.client_comm.Get_rank()
        for it in range(2 if source == 0 else 5):
            s.write("v", np.full(4, 10 * it + source, dtype=np.int32))
            s.end_iteration()
        stored = None
        if source == 1:  # iteration 3 is stored while this client still runs
            start = time.monotonic()
            while not os.path.exists("out/It3/bind_Pr0.h5") and time.monotonic() - start < 10:
                time.sleep(0.01)
            stored = os.path.exists("out/It3/bind_Pr0.h5")
        report(source=source, stored=stored)
"""


@pytest.mark.parametrize("architecture", [
    DC, '<dedicated cores="0" nodes="1"/><virtual-nodes ranks-per-node="1"/>',
    # The analysis core frees the blocks: with room for 2 blocks per client, held iterations
    # would leave client 1 waiting for room.
    '<dedicated cores="2" roles="store analysis"/><virtual-nodes ranks-per-node="4"/>'
    '<buffer size="700"/>'])
def test_a_client_that_stops_early_does_not_hold_the_others_iterations(tmp_path, architecture):
    """Client 0 stops after 2 iterations, client 1 runs 5: its iterations 2 to 4 are stored
    as they end (the stopped client counts as having ended them), not held until every client
    stopped, and without the warning about iterations not ended by every client."""
    import h5py
    xml = FAILING_STORES.replace("ARCHITECTURE", architecture).replace(
        'LogLevel="error"', 'LogLevel="warning"')
    ranks = 4 if "roles" in architecture else 3  # one (storing) server for both clients
    result = run_plain(tmp_path, ranks, xml, STOP_EARLY)
    assert result.returncode == 0, result.stdout + result.stderr
    assert [r["stored"] for r in sorted(results(result.stdout), key=lambda r: r["source"])] == [
        None, True]
    assert "not ended by every client" not in result.stderr
    for it in range(5):
        stored = {}
        for path in (tmp_path / "out" / f"It{it}").glob("*.h5"):
            with h5py.File(path, "r") as f:
                stored.update({name: list(f["v"][name][()]) for name in f["v"]})
        sources = [0, 1] if it < 2 else [1]
        assert stored == {f"P{s}": [10 * it + s] * 4 for s in sources}, it


PARTITIONED_RING = """<simulation name="bind" xmlns="urn:ecluse:config:1">
  <architecture><domains count="1"/><dedicated cores="1" nodes="0"/>
    <virtual-nodes ranks-per-node="2"/><buffer size="64KiB" allocator="partitioned"/></architecture>
  <data><layout name="x" type="double" dimensions="4800"/><variable name="x" layout="x"/>
    <layout name="a" type="double" dimensions="800"/><variable name="a" layout="a"/>
    <layout name="b" type="double" dimensions="6400"/><variable name="b" layout="b"/></data>
  <storage><store name="files" type="HDF5"><option key="FilesPath">out</option></store></storage>
  <log LogLevel="error"/>
</simulation>
"""

FILL_THE_RING = """
with ecluse.Session("bind.xml") as s:
    if s.is_client:
        s.write("x", np.zeros(4800))     # 59% of the part, stored while the next ones come
        s.end_iteration()
        s.write("a", np.zeros(800))      # behind x
        error = error_of(s.write, "b", np.zeros(6400))  # 78%: only behind a, once x is freed
        report(error=error)
"""


def test_a_block_that_cannot_fit_between_its_iterations_blocks_is_refused(tmp_path):
    """allocator="partitioned": a client's part is a ring that no block wraps around. a (10%)
    sits behind x (59%); b (78%) does not fit after a, and before a only once x is freed, which
    leaves 59%: b can never fit while a is held, and a is freed only once the iteration is
    stored. The write is refused at once, not after ECLUSE_TIMEOUT."""
    result = run_plain(tmp_path, 2, PARTITIONED_RING, FILL_THE_RING)
    assert result.returncode == 0, result.stdout + result.stderr
    (r,) = results(result.stdout)
    assert r["error"][:2] == ["ECLUSE_ALLOCATION_ERROR", 5]
    assert re.fullmatch(
        r"iteration 1: block 0 of variable 'b' needs 51264 bytes of this client's part of the "
        r"buffer \(allocator=\"partitioned\"\), and its other blocks of this iteration \(6464 "
        r"bytes\) leave no contiguous room: a part is a ring that no block wraps around, and "
        r"they are freed only once the iteration is stored; raise <buffer size> \(now 65536 "
        r"bytes \(64\.0 KiB\), at bind\.xml:3:\d+\) to at least \d+ bytes \([0-9.]+ KiB\), or "
        r"use allocator=\"general\"\.", r["error"][2]), r["error"][2]


NAME_CLASH = """<simulation name="bind" xmlns="urn:ecluse:config:1">
  <architecture><domains count="1"/><dedicated cores="0" nodes="0"/></architecture>
  <data><layout name="row" type="int" dimensions="4" global="4"/>
    <variable name="fluid" layout="row"/><variable name="other" layout="row"/>
    <group name="fluid"><variable name="p" layout="row"/></group></data>
  <storage><store name="shared" type="HDF5"><option key="FileMode">Collective</option>
    <option key="FilesPath">out</option></store></storage>
  <log LogLevel="error"/>
</simulation>
"""

WRITE_NAME_CLASH = """
with ecluse.Session("bind.xml") as s:
    for name, first in (("fluid", 0), ("fluid/p", 10), ("other", 20)):
        s.write(name, np.arange(first, first + 4, dtype=np.int32))
    report(error=error_of(s.end_iteration))
"""


def test_a_variable_nested_under_another_variables_dataset_is_refused_alone(tmp_path):
    """Collective: variable 'fluid' is a dataset, so group 'fluid' cannot hold 'fluid/p'. Only
    'fluid/p' is refused: the file holds the other variables, and the iteration says why."""
    import h5py
    result = run_plain(tmp_path, 1, NAME_CLASH, WRITE_NAME_CLASH)
    assert result.returncode == 0, result.stdout + result.stderr
    (r,) = results(result.stdout)
    assert r["error"][0] == "ECLUSE_DATASPACE_ERROR"
    assert ("store 'shared': variable 'fluid/p': its dataset would go in group 'fluid', but "
            "'fluid' is the dataset of variable 'fluid' in this Collective file; rename one of "
            "them (a variable and a group cannot share a name here)") in r["error"][2]
    with h5py.File(tmp_path / "out" / "bind_It0.h5", "r") as f:
        assert sorted(f) == ["fluid", "other"]
        assert list(f["fluid"][()]) == [0, 1, 2, 3] and list(f["other"][()]) == [20, 21, 22, 23]


NO_FINALIZE = """
s = ecluse.Session("bind.xml")
if s.is_client:
    s.write("field", np.ones((6, 4)))
    s.end_iteration()
    s.stop()
# no close: mpi4py calls MPI_Finalize at exit
"""


@pytest.mark.parametrize("architecture", ["tp", "dc"])
def test_mpi_finalize_before_ecluse_finalize_is_said_and_does_not_abort(tmp_path, architecture):
    """A session never closed was destroyed after MPI_Finalize, whose MPI_Comm_free aborted the
    job with an MPI message that does not name Ecluse; it is released in MPI_Finalize now."""
    config = {"tp": TP, "dc": DC.replace('"3"', '"2"')}[architecture]
    xml = CONFIG.replace("ARCHITECTURE", config).replace("DOMAINS", "1")
    result = run_plain(tmp_path, 1 if architecture == "tp" else 2, xml, NO_FINALIZE)
    assert result.returncode == 0, result.stdout + result.stderr
    assert ("ecluse: world rank 0: MPI_Finalize was called before ecluse_finalize: no run report "
            "is written, and blocks not handed over by an end_iteration may not be stored; call "
            "ecluse_finalize (damaris_finalize) before MPI_Finalize.") in result.stderr
    assert "after MPI_FINALIZE" not in result.stderr + result.stdout


SKIPPING = """
with ecluse.Session("bind.xml") as s:
    if s.is_client:
        for block in range(16):
            s.write("counts", np.full(40000, block, dtype=np.int32), block)
        s.end_iteration()
        s.stop()
        report(skipped=s.statistic("dc.skipped_blocks"))
"""


def test_blocks_dropped_by_policy_skip_are_not_counted_as_written(tmp_path):
    """policy="skip": the blocks that found no room are dropped (counted, logged) and the
    report's bytes are those handed over, not those dropped too."""
    xml = TOO_MANY_BLOCKS.replace('<buffer size="1MiB"/>', '<buffer size="1MiB" policy="skip"/>')
    xml = xml.replace("ARCHITECTURE", DC.replace('"3"', '"2"')).replace("DOMAINS", "16")
    result = run_plain(tmp_path, 2, xml, SKIPPING)
    assert result.returncode == 0, result.stdout + result.stderr
    (r,) = results(result.stdout)
    stored = 16 - int(r["skipped"])
    assert 0 < stored < 16, r
    report = json.loads((tmp_path / "bind-report.json").read_text())
    assert report["iterations"]["client_bytes"]["sum"] == stored * 160000
    assert report["io"]["bytes"] == stored * 160000


def test_skipped_blocks_are_logged_ten_times_then_at_powers_of_two(tmp_path):
    """policy="skip" logged every dropped block: 100,000 lines for a run that drops one an
    iteration. The first 10 are said, then the 16th, 32nd, 64th...; the report counts all."""
    xml = TOO_MANY_BLOCKS.replace('<buffer size="1MiB"/>', '<buffer size="1MiB" policy="skip"/>')
    xml = xml.replace("ARCHITECTURE", DC.replace('"3"', '"2"')).replace("DOMAINS", "80")
    result = run_plain(tmp_path, 2, xml, SKIPPING.replace("range(16)", "range(80)"))
    assert result.returncode == 0, result.stdout + result.stderr
    (r,) = results(result.stdout)
    skipped = int(r["skipped"])
    assert skipped > 64, r
    said = re.findall(r"skipped \(policy skip, (\d+) skipped so far", result.stderr)
    assert [int(n) for n in said] == list(range(1, 11)) + [16, 32, 64], said
    assert "skipped so far; said again at 128 skipped)" in result.stderr


def test_parameters_are_typed_and_layouts_follow(tmp_path):
    body = """
    with ecluse.Session("bind.xml") as s:
        before = [s.parameter_get(n) for n in ("N", "BIG", "ALPHA", "LABEL")]
        s.parameter_set("N", 3)
        s.parameter_set("BIG", 2**40)
        s.parameter_set("ALPHA", 1)
        s.parameter_set("LABEL", "second run")
        after = [s.parameter_get(n) for n in ("N", "BIG", "ALPHA", "LABEL")]
        dtype, shape = s.variable_shape("field")
        errors = dict(
            range=error_of(s.parameter_set, "N", 2**31),
            kind=error_of(s.parameter_set, "N", 2.5),
            text=error_of(s.parameter_set, "LABEL", 3),
            number=error_of(s.parameter_set, "ALPHA", "x"),
            breaks=error_of(s.parameter_set, "N", -1),
            boolean=error_of(s.parameter_set, "N", True),
            nul=error_of(s.parameter_set, "LABEL", "a\\0b"),
            nul_name=error_of(s.write, "field\\0junk", np.zeros((3, 4))),
            unknown=error_of(s.parameter_get, "M"))
        report(before=before, after=after, shape=[dtype.str, list(shape)], n=s.parameter_get("N"),
               types=[type(v).__name__ for v in after], **errors)
    """
    (r,) = run_script(tmp_path, 1, body)
    assert r["before"] == [6, 5000000000, 0.25, "first run"]
    assert r["after"] == [3, 2**40, 1.0, "second run"]
    assert r["types"] == ["int", "int", "float", "str"]
    assert r["shape"] == ["<f8", [3, 4]]
    assert r["range"] == ["ECLUSE_ARGUMENT_ERROR", 7, "parameter 'N' is of type int; give a whole "
                          "number from -2147483648 to 2147483647, not 2147483648."]
    assert r["kind"][2] == ("parameter 'N' is of type int; give a whole number from -2147483648 "
                            "to 2147483647, not 2.5.")
    assert r["text"][2] == "parameter 'LABEL' is of type string; give a str, not 3."
    assert r["number"][2] == "parameter 'ALPHA' is of type double; give a number, not 'x'."
    assert r["breaks"][0] == "ECLUSE_INVALID_DIMENSIONS"
    assert r["breaks"][2].startswith("parameter 'N' was not changed: the new value would break ")
    assert r["n"] == 3, "a refused value keeps the old one"
    assert r["boolean"][2] == ("parameter 'N' is of type int; give a whole number from "
                               "-2147483648 to 2147483647, not True.")
    # C strings end at a NUL: "a\0b" was stored as "a", "field\0junk" written as "field".
    assert r["nul"][2] == ("parameter 'LABEL': the string 'a\\x00b' holds a NUL character, "
                           "where C strings end; remove it.")
    assert r["nul_name"][2] == ("variable name 'field\\x00junk' holds a NUL character; C names "
                                "end there: remove it.")
    assert r["unknown"] == ["ECLUSE_UNDEFINED_PARAMETER", 15,
                            "parameter 'M' is not declared in the configuration"]


def test_fortran_layouts_take_the_reversed_shape(tmp_path):
    import h5py
    import numpy as np
    body = """
    with ecluse.Session("bind.xml") as s:
        s.write("f", np.arange(6, dtype=np.float32).reshape(3, 2))
        s.end_iteration()
        report(shape=list(s.variable_shape("f")[1]))
    """
    (r,) = run_script(tmp_path, 1, body)
    assert r["shape"] == [3, 2]
    with h5py.File(tmp_path / "out" / "bind_It0_Pr0.h5", "r") as f:
        np.testing.assert_array_equal(f["f/P0"][...], np.arange(6, dtype=np.float32).reshape(3, 2))


@pytest.mark.parametrize("architecture", [TP, DC], ids=["tp", "dc"])
def test_slices_are_written_as_their_values(tmp_path, architecture):
    """The interior of a ghosted array, a strided slice and a Fortran-ordered array: each is
    stored as the values it shows, not as the memory under it."""
    import h5py
    import numpy as np
    body = """
    with ecluse.Session("bind.xml") as s:
        if s.is_client:
            rank = s.client_comm.Get_rank()
            ghosted = np.arange(80, dtype=np.float64).reshape(8, 10) + 1000 * rank
            s.write("field", ghosted[1:-1, 3:7])
            s.write("other", np.asfortranarray(ghosted[:6, :4]))
            s.write("counts", np.arange(6, dtype=np.int32)[::2] + rank)
            s.end_iteration()
            # Negative strides: reversed views.
            s.write("field", ghosted[::-1, ::-1][1:-1, 3:7])
            s.write("other", ghosted[:6, :4][::-1])
            s.write("counts", (np.arange(6, dtype=np.int32) + rank)[::-2])
            s.end_iteration()
            report(c_contiguous=ghosted[1:-1, 3:7].flags.c_contiguous)
    """
    results = run_script(tmp_path, 3 if architecture == DC else 1, body, architecture)
    assert [r["c_contiguous"] for r in results] == [False] * len(results)
    stored = {}
    for iteration in (0, 1):
        for path in (tmp_path / "out").glob(f"bind_It{iteration}_*.h5"):
            with h5py.File(path, "r") as f:
                f.visititems(lambda name, d: stored.update({(iteration, name): d[...]})
                             if isinstance(d, h5py.Dataset) else None)
    assert len(stored) == 2 * 3 * len(results)
    for rank in range(len(results)):
        ghosted = np.arange(80, dtype=np.float64).reshape(8, 10) + 1000 * rank
        np.testing.assert_array_equal(stored[0, f"field/P{rank}"], ghosted[1:-1, 3:7])
        np.testing.assert_array_equal(stored[0, f"other/P{rank}"], ghosted[:6, :4])
        np.testing.assert_array_equal(stored[0, f"counts/P{rank}"],
                                      np.array([0, 2, 4], dtype=np.int32) + rank)
        np.testing.assert_array_equal(stored[1, f"field/P{rank}"],
                                      ghosted[::-1, ::-1][1:-1, 3:7])
        np.testing.assert_array_equal(stored[1, f"other/P{rank}"], ghosted[:6, :4][::-1])
        np.testing.assert_array_equal(stored[1, f"counts/P{rank}"],
                                      np.array([5, 3, 1], dtype=np.int32) + rank)


def test_import_ecluse_needs_no_native_module(tmp_path):
    """The CLI and the model import the package without the native module; Session says how to
    get it."""
    code = ("import sys\n"
            "sys.modules['ecluse._native'] = None  # as if it were not built\n"
            "import ecluse, ecluse.model\n"
            "try:\n    ecluse.Session\nexcept ImportError as e:\n    print(e)\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=child_env(),
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "ecluse.Session needs the native module ecluse._native" in result.stdout
    assert "scripts/setup.sh writes ecluse-native.pth" in result.stdout


def test_blocks_of_several_domains_are_written_and_positioned(tmp_path):
    import h5py
    import numpy as np
    body = """
    with ecluse.Session("bind.xml") as s:
        for block in range(2):
            s.set_position("field", (6 * block, 0), block)
        s.write("field", np.full((6, 4), 1.0), 0)
        room = s.alloc("field", 1)
        room[...] = 2.0
        s.commit("field", 1)
        report(bad=error_of(s.write, "field", np.zeros((4, 6)), 1))
        s.end_iteration()
    """
    (r,) = run_script(tmp_path, 1, body, domains=2)
    assert r["bad"][2].startswith("write of variable 'field' block 1: its layout 'grid' takes")
    with h5py.File(tmp_path / "out" / "bind_It0_Pr0.h5", "r") as f:
        for block, value in ((0, 1.0), (1, 2.0)):
            dataset = f[f"field/P0/B{block}"]
            np.testing.assert_array_equal(dataset[...], np.full((6, 4), value))
            assert list(dataset.attrs["global_offset"]) == [6 * block, 0]


def test_actions_bound_in_python_run_on_the_dedicated_core(tmp_path):
    """A remote event runs on the server, inside start (which released the GIL)."""
    body = """
    seen = []
    with ecluse.Session("bind.xml") as s:
        s.bind("stored", lambda event, source, iteration, args: seen.append([event, source,
                                                                             iteration]))
        if s.is_client:
            for it in range(2):
                s.write("field", np.zeros((6, 4)))
                s.signal("stored")
                s.end_iteration()
    report(seen=seen)
    """
    client, server = run_script(tmp_path, 2, body, architecture=DC.replace('"3"', '"2"'))
    assert client["seen"] == []
    assert server["seen"] == [["stored", 0, 0], ["stored", 0, 1]]


def test_an_action_that_raises_on_the_server_raises_its_first_exception_once(tmp_path):
    """Every later call still runs (no exception pending in it), the first exception comes out
    of start, and the later ones are printed as unraisable."""
    body = """
    seen = []
    def action(event, source, iteration, args):
        seen.append(iteration)
        raise ValueError(f"action failed at {iteration}")
    with ecluse.Session("bind.xml") as s:
        s.bind("stored", action)
        try:
            client, raised = s.is_client, None
        except ValueError as e:
            client, raised = False, [type(e.__cause__).__name__, str(e)]
        if client:
            for it in range(3):
                s.write("field", np.zeros((6, 4)))
                s.signal("stored")
                s.end_iteration()
    report(seen=seen, raised=raised)
    """
    text = CONFIG.replace("ARCHITECTURE", DC.replace('"3"', '"2"')).replace("DOMAINS", "1")
    (tmp_path / "bind.xml").write_text(text)
    (tmp_path / "script.py").write_text(PRELUDE + textwrap.dedent(body))
    result = subprocess.run([mpiexec(), "-n", "2", sys.executable, "script.py"], cwd=tmp_path,
                            env=child_env(), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    client, server = sorted(results(result.stdout), key=lambda r: r["rank"])
    assert client["seen"] == [] and client["raised"] is None
    assert server["seen"] == [0, 1, 2]
    assert server["raised"] == ["NoneType", "action failed at 0"]
    assert result.stderr.count("Exception ignored in") == 2, result.stderr
    assert "ValueError: action failed at 2" in result.stderr


ITERATION_VARIANTS = """
with ecluse.Session("bind.xml") as s:
    if s.is_client:
        a = s.alloc("field")
        a[...] = 1.0
        wrong = error_of(s.commit, "field", 0, 5)
        s.commit("field", iteration=0)
        c = s.alloc("counts")
        s.clear("counts", iteration=0)
        s.end_iteration()
        report(servers=s.has_servers, wrong=wrong, ended=error_of(s.clear, "counts", 0, 0))
"""


@pytest.mark.parametrize("architecture", ["tp", "dc"])
def test_commit_and_clear_of_an_iteration_and_has_servers(tmp_path, architecture):
    import h5py
    config = {"tp": TP, "dc": DC.replace('"3"', '"2"')}[architecture]
    (r,) = run_script(tmp_path, 1 if architecture == "tp" else 2, ITERATION_VARIANTS, config)
    assert r["servers"] == (architecture == "dc")
    assert r["wrong"][0] == "ECLUSE_BLOCK_NOT_FOUND", r["wrong"]
    assert r["ended"] is None, "clearing an ended iteration is OK: nothing is left to clear"
    (path,) = (tmp_path / "out").glob("bind_It0_Pr*.h5")
    with h5py.File(path, "r") as f:
        assert (f["field/P0"][...] == 1.0).all() and "counts" not in f


CLOSED_AFTER_MPI_FINALIZE = """
with ecluse.Session("bind.xml") as s:
    if s.is_client:
        s.write("field", np.ones((6, 4)))
        s.end_iteration()
    MPI.Finalize()  # before the block ends: close must make no MPI call
print("after the block", flush=True)
"""


def test_a_session_closed_after_mpi_finalize_makes_no_mpi_call(tmp_path):
    xml = CONFIG.replace("ARCHITECTURE", TP).replace("DOMAINS", "1")
    result = run_plain(tmp_path, 1, xml, CLOSED_AFTER_MPI_FINALIZE)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "after the block" in result.stdout
    assert "MPI_Finalize was called before ecluse_finalize" in result.stderr
    assert "after MPI_FINALIZE" not in result.stderr + result.stdout


BEFORE_START = """
with ecluse.Session("bind.xml") as s:
    if MPI.COMM_WORLD.Get_rank() == 1:
        raise FileNotFoundError("input deck missing on rank 1")
    if s.is_client:
        s.write("field", np.ones((6, 4)))
        s.end_iteration()
"""


@pytest.mark.parametrize("architecture", [TP, DC], ids=["tp", "dc"])
def test_an_exception_before_start_ends_the_job_with_its_traceback(tmp_path, architecture):
    """The other ranks wait in start's collectives for the rank that raised before it asked
    is_client: after ECLUSE_EXCEPTION_WAIT it says why and ends the job (it hung for ever)."""
    xml = CONFIG.replace("ARCHITECTURE", architecture).replace("DOMAINS", "1")
    (tmp_path / "bind.xml").write_text(xml)
    (tmp_path / "script.py").write_text(PRELUDE + textwrap.dedent(BEFORE_START))
    result = subprocess.run([mpiexec(), "-n", "2" if architecture == TP else "3",
                             sys.executable, "script.py"], cwd=tmp_path,
                            env=dict(child_env(), ECLUSE_EXCEPTION_WAIT="2"),
                            capture_output=True, text=True, timeout=100)
    assert result.returncode != 0
    assert "ecluse: world rank 1: an exception left the Session block" in result.stderr
    assert "FileNotFoundError: input deck missing on rank 1" in result.stderr


EVERY_RANK_BEFORE_START = """
try:
    with ecluse.Session("bind.xml") as s:
        raise KeyError("bad input")
except KeyError:
    report(closed=True)
"""


def test_an_exception_on_every_rank_before_start_closes_cleanly(tmp_path):
    assert [r["closed"] for r in run_script(tmp_path, 2, EVERY_RANK_BEFORE_START)] == [True, True]


PHASES = """
with ecluse.Session("bind.xml") as s:
    for phase in range(2):
        if s.start():
            s.write("field", np.full((6, 4), float(phase)))
            s.end_iteration()
            s.stop()
            again = s.is_client  # reading it never opens a phase
    report(client=s.is_client)
"""


@pytest.mark.parametrize("architecture", ["tp", "dc"])
def test_start_after_stop_opens_a_new_phase(tmp_path, architecture):
    """ecluse.h: after ecluse_stop, start again opens a new phase (Damaris's restart); the
    session cached the first start and refused the second phase's writes."""
    import h5py
    config = {"tp": TP, "dc": DC.replace('"3"', '"2"')}[architecture]
    reports = run_script(tmp_path, 1 if architecture == "tp" else 2, PHASES, config)
    assert reports[0] == {"client": True, "rank": 0}
    for iteration in range(2):
        (path,) = (tmp_path / "out").glob(f"bind_It{iteration}_*.h5")
        with h5py.File(path, "r") as f:
            assert (f["field/P0"][...] == float(iteration)).all()


CLEAR_ENDED = """
with ecluse.Session("bind.xml") as s:
    if s.is_client:
        s.end_iteration()
        v = s.alloc("field")
        s.clear("field", iteration=0)  # an ended iteration: nothing to give up
        writeable = bool(v.flags.writeable)
        v[...] = 3.0
        del v
        s.commit("field")
        s.end_iteration()
        report(writeable=writeable)
"""


def test_clearing_an_ended_iteration_leaves_the_current_view(tmp_path):
    import h5py
    (r,) = run_script(tmp_path, 1, CLEAR_ENDED)
    assert r["writeable"] is True
    (path,) = (tmp_path / "out").glob("bind_It1_*.h5")
    with h5py.File(path, "r") as f:
        assert (f["field/P0"][...] == 3.0).all()


CONSTANT_AFTER_FAILURE = """
import os
os.makedirs("out")
open("out/It0", "w").close()  # a file where iteration 0's directory goes: its stores fail
with ecluse.Session("bind.xml") as s:
    failed = []
    for it in range(2):
        s.write("c", np.full(4, 7, dtype=np.int32))  # a constant: written every step
        s.write("v", np.full(4, it, dtype=np.int32))
        error = error_of(s.end_iteration)
        failed.append(error[0] if error else None)
    report(failed=failed)
"""


def test_a_constant_variable_whose_iteration_failed_is_written_at_its_next_write(tmp_path):
    """TP: the constant `c` of iteration 0 was not stored (its store failed): it was marked
    written all the same, and every later write returned OK without storing it."""
    import h5py
    xml = FAILING_STORES.replace("ARCHITECTURE", TP).replace(
        '<variable name="v" layout="l"/>',
        '<variable name="v" layout="l"/><variable name="c" layout="l" time-varying="false"/>')
    result = run_plain(tmp_path, 1, xml, CONSTANT_AFTER_FAILURE)
    assert result.returncode == 0, result.stdout + result.stderr
    (r,) = results(result.stdout)
    assert r["failed"] == ["ECLUSE_IO_ERROR", None]
    with h5py.File(tmp_path / "out" / "It1" / "bind_Pr0.h5", "r") as f:
        assert list(f["c/P0"][...]) == [7, 7, 7, 7] and list(f["v/P0"][...]) == [1, 1, 1, 1]


SERVER_DIES = """
import os, signal, time
with ecluse.Session("bind.xml") as s:
    s.bind("stored", lambda *args: os.kill(os.getpid(), signal.SIGKILL))  # runs on the server
    if s.is_client:
        s.signal("stored")
        killed = time.monotonic()
        first_error = None
        for it in range(60):
            s.write("counts", np.arange(3, dtype=np.int32))
            error = error_of(s.end_iteration)
            if error:
                first_error = [round(time.monotonic() - killed, 2), error[0], error[2], it]
                break
            time.sleep(0.05)
        report(first_error=first_error)
        os._exit(0)  # the job is broken: no collective finalize
"""


@pytest.mark.parametrize("architecture", [DC.replace('"3"', '"2"'),
                                          '<dedicated cores="0" nodes="1"/>'
                                          '<virtual-nodes ranks-per-node="1"/>'])
def test_a_client_that_never_waits_hears_of_its_dead_server_within_seconds(tmp_path,
                                                                          architecture):
    """DC, DN: a client whose buffer (credit) never runs out never waited, so never checked its
    server: after the dedicated core (node) died, every end_iteration returned OK until stop
    (hours of computing with nothing stored). Its end_iteration now checks the server at most
    once a second (DN: a server on the same host; a remote one's death is MPI's to tell).
    The iterations it handed over since the last its server stored are named, in the message
    and the partial report: they had returned OK and are lost."""
    version = subprocess.run([mpiexec(), "--version"], capture_output=True, text=True).stdout
    if "HYDRA" in version:  # as in test_fault_injection.py
        pytest.skip("MPICH's Hydra may end the survivors at a kill, even with "
                    "-disable-auto-cleanup: the client may not live to hear of it")
    survive = ["--enable-recovery"]
    xml = CONFIG.replace("ARCHITECTURE", architecture).replace("DOMAINS", "1")
    (tmp_path / "bind.xml").write_text(xml)
    (tmp_path / "script.py").write_text(PRELUDE + textwrap.dedent(SERVER_DIES))
    result = subprocess.run([mpiexec(), "-n", "2", *survive, sys.executable, "script.py"],
                            cwd=tmp_path, env=dict(child_env(), ECLUSE_TIMEOUT="20"),
                            capture_output=True, text=True, timeout=120)
    (r,) = results(result.stdout)
    assert r["first_error"] is not None, result.stdout + result.stderr
    seconds, status, message, iteration = r["first_error"]
    assert status == "ECLUSE_CHANNEL_ERROR" and seconds < 5, r
    assert "is gone while the client ended an iteration; iterations " in message, message
    # The server dies at its action for iteration 0, which runs once iteration 0 is stored.
    lost = re.search(r"; iterations (\d+) to (\d+) of this client are not stored; the run "
                     r"cannot go on", message)
    assert lost and int(lost[1]) in (0, 1) and int(lost[2]) == iteration, message
    failures = json.loads((tmp_path / "bind-report.json").read_text())["failures"]
    assert [f["lost_iterations"] for f in failures if f["cause"] == message] == [
        {"count": iteration - int(lost[1]) + 1, "first": int(lost[1]), "last": iteration}]


FOREIGN_ARRAYS = """
import ctypes
class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]
class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]
class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]
class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]
ctypes.pythonapi.PyCapsule_New.restype = ctypes.py_object
ctypes.pythonapi.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
class OnGpu:
    # A CUDA array as CuPy hands it over (DLPack, device kDLCUDA): no host memory behind it.
    def __init__(self):
        self.shape_ = (ctypes.c_int64 * 2)(6, 4)
        self.tensor = DLManagedTensor(DLTensor(0xdead0000, DLDevice(2, 0), 2, DLDataType(2, 64, 1),
                                               self.shape_, None, 0), None, None)
    def __dlpack__(self, stream=None, max_version=None, **kw):
        if max_version is not None:
            raise TypeError("an older producer")
        return ctypes.pythonapi.PyCapsule_New(ctypes.addressof(self.tensor), b"dltensor", None)
    def __dlpack_device__(self):
        return (2, 0)
record = np.zeros((6, 4), dtype=[("T", "f8"), ("flag", "i1")])
with ecluse.Session("bind.xml") as s:
    if s.is_client:
        report(gpu=error_of(s.write, "field", OnGpu()),
               field=error_of(s.write, "field", record["T"]))
"""


def test_arrays_that_are_not_host_arrays_of_whole_elements_are_refused_with_how_to(tmp_path):
    """A GPU array's pointer was read as host memory (a crash); a field of a structured array
    (strides of 9 bytes) got a hint that did not apply."""
    (r,) = run_script(tmp_path, 1, FOREIGN_ARRAYS)
    layout = ("write of variable 'field': its layout 'grid' takes a float64 array of shape (6, "
              "4), got")
    assert r["gpu"] == ["ECLUSE_ARGUMENT_ERROR", 7, layout + " a OnGpu; nothing was written. It is "
                        "in device memory (DLPack device type 2): copy it to host memory first "
                        "(cupy.asnumpy(a), t.cpu().numpy(), ...)."]
    assert r["field"] == ["ECLUSE_ARGUMENT_ERROR", 7, layout + " a float64 array of shape (6, 4); "
                          "nothing was written. Its strides (36, 9) are not whole elements of 8 "
                          "bytes (a field of a structured array?): pass np.ascontiguousarray(a)."]


ONE_RANK_BEFORE_START_OTHERS_NEVER_START = """
try:
    with ecluse.Session("bind.xml") as s:
        if MPI.COMM_WORLD.Get_rank() == 1:
            raise KeyError("bad input on rank 1")
except KeyError:
    pass
report(closed=True)
"""


def test_a_rank_that_raises_before_start_beside_ranks_that_never_start_closes(tmp_path):
    """The ranks that close without starting meet the one that raised before start: no one
    waits for the others, no abort."""
    reports = run_script(tmp_path, 2, ONE_RANK_BEFORE_START_OTHERS_NEVER_START)
    assert [r["closed"] for r in reports] == [True, True]


CONSTANT_AFTER_SERVER_FAILURE = """
import os, time
if MPI.COMM_WORLD.Get_rank() == 0:
    os.makedirs("out")
    open("out/It0", "w").close()  # a file where iteration 0's directory goes: its store fails
MPI.COMM_WORLD.Barrier()
failed, final = [], None
try:
    with ecluse.Session("bind.xml") as s:
        if s.is_client:
            for it in range(3):
                s.write("c", np.full(4, 7, dtype=np.int32))  # a constant: written every step
                s.write("v", np.full(4, it, dtype=np.int32))
                error = error_of(s.end_iteration)
                failed.append(error[0] if error else None)
                time.sleep(0.4)  # the server stores (or fails) the iteration
except ecluse.Error as e:
    final = e.status
report(failed=failed, final=final)
"""


@pytest.mark.parametrize("architecture", [DC.replace('"3"', '"2"'),
                                          '<dedicated cores="0" nodes="1"/>'
                                          '<virtual-nodes ranks-per-node="1"/>'])
def test_a_constant_variable_whose_iteration_failed_on_the_server_is_written_again(
        tmp_path, architecture):
    """DC, DN: the server fails iteration 0, which held the constant `c`; the client hears of
    it at iteration 1's end_iteration and writes `c` again at its next write (iteration 2).
    It was lost for the whole run, every write returning OK."""
    import h5py
    xml = FAILING_STORES.replace("ARCHITECTURE", architecture).replace(
        '<variable name="v" layout="l"/>',
        '<variable name="v" layout="l"/><variable name="c" layout="l" time-varying="false"/>')
    result = run_plain(tmp_path, 2, xml, CONSTANT_AFTER_SERVER_FAILURE)
    assert result.returncode == 0, result.stdout + result.stderr
    client, server = sorted(results(result.stdout), key=lambda r: r["rank"])
    # Heard at iteration 1's end_iteration, or at iteration 0's own when the server failed it
    # before that call returned (a fast failure on an idle node): once, and c written again at
    # the next write, into that iteration's file only.
    heard = client["failed"].index("ECLUSE_IO_ERROR") if "ECLUSE_IO_ERROR" in client[
        "failed"] else None
    assert heard in (0, 1), client
    expected = [None] * 3
    expected[heard] = "ECLUSE_IO_ERROR"
    assert client == {"rank": 0, "failed": expected, "final": None}
    assert server["final"] == "ECLUSE_IO_ERROR"  # the server's own failure, at its finalize
    for it in (1, 2):
        with h5py.File(tmp_path / "out" / f"It{it}" / "bind_Pr0.h5", "r") as f:
            assert list(f["v/P0"][...]) == [it] * 4
            assert ("c" in f) == (it == heard + 1), (it, heard)
            if it == heard + 1:
                assert list(f["c/P0"][...]) == [7, 7, 7, 7]


EXIT_WITHOUT_FINALIZE = """
import ctypes
s = ecluse.Session("bind.xml")
s.write("counts", np.arange(3, dtype=np.int32))
s.end_iteration()
ctypes.CDLL(None).exit(0)  # C's exit(): static destructors run, no finalize was called
"""


def test_a_process_that_exits_without_finalize_says_so(tmp_path):
    """exit() without ecluse_finalize (a Damaris program that forgets it, or ends on an error
    path) stopped the session silently at exit: its dedicated core took it for a clean stop."""
    xml = CONFIG.replace("ARCHITECTURE", TP).replace("DOMAINS", "1")
    result = run_plain(tmp_path, 1, xml, EXIT_WITHOUT_FINALIZE)
    assert ("ecluse: world rank 0: the process ends without ecluse_finalize (damaris_finalize): "
            "Ecluse stops here and writes no run report, and what was not handed over by an "
            "end_iteration may not be stored; call ecluse_finalize before the process "
            "ends.") in result.stderr, (
        result.stdout + result.stderr)


EVERY_TENTH = """<simulation name="bind" xmlns="urn:ecluse:config:1">
  <architecture><domains count="1"/>ARCHITECTURE</architecture>
  <data><layout name="l" type="int" dimensions="4"/><variable name="v" layout="l"/></data>
  <storage><store name="files" type="HDF5" frequency="10"><option key="FilesPath">out</option>
    </store></storage>
  <log LogLevel="error"/>
</simulation>
"""


@pytest.mark.parametrize("architecture", [TP, DC.replace('"3"', '"2"')])
def test_a_stores_frequency_leaves_its_skipped_iterations_out_of_the_store_time(
        tmp_path, architecture):
    """frequency="10": 3 of 30 iterations are stored. The 27 others were counted as store
    samples of ~0 s, so the store time per output (the advisor's input) read 10 times low."""
    body = """
with ecluse.Session("bind.xml") as s:
    if s.is_client:
        for it in range(30):
            s.write("v", np.full(4, it, dtype=np.int32))
            s.end_iteration()
"""
    result = run_plain(tmp_path, 2 if "cores" in architecture and '"1"' in architecture else 1,
                       EVERY_TENTH.replace("ARCHITECTURE", architecture), body)
    assert result.returncode == 0, result.stdout + result.stderr
    it = json.loads((tmp_path / "bind-report.json").read_text())["iterations"]
    assert it["server_store_s"]["count"] == 3, it["server_store_s"]
    assert it["server_store_empty_s"]["count"] == 27, it["server_store_empty_s"]
    assert sorted(p.name for p in (tmp_path / "out").glob("*.h5")) == [
        f"bind_It{i}_Pr0.h5" for i in (0, 10, 20)]


WRITE_PAST_THE_SHARE = """
with ecluse.Session("bind.xml") as s:
    if s.is_client:
        error = None
        for block in range(8):
            error = error_of(s.write, "counts", np.full(40000, block, dtype=np.int32), block)
            if error:
                break
        report(error=error)
"""


def test_a_write_past_the_share_asks_for_the_whole_iterations_buffer(tmp_path):
    """The refused write of an iteration too large for a client's share said to raise the
    buffer to that iteration's need so far: raised so, the next write failed again. It now asks
    for what initialize warned the whole iteration needs."""
    xml = TOO_MANY_BLOCKS.replace("ARCHITECTURE", DC.replace('"3"', '"2"')).replace(
        "DOMAINS", "8")
    result = run_plain(tmp_path, 2, xml, WRITE_PAST_THE_SHARE)
    assert result.returncode == 0, result.stdout + result.stderr
    warned = re.search(r"an iteration that writes all \d+ blocks .* to at least (\d+) bytes",
                       result.stderr)
    assert warned, result.stderr
    (r,) = results(result.stdout)
    assert r["error"][0] == "ECLUSE_ALLOCATION_ERROR", r
    asked = re.search(r"to at least (\d+) bytes", r["error"][2])
    assert asked and asked.group(1) == warned.group(1), (r["error"][2], warned.group(0))
    assert "(the whole iteration of this client needs " in r["error"][2]


REFUSED_AND_GOING_ON = """
with ecluse.Session("bind.xml") as s:
    if s.is_client:
        refused = 0
        for it in range(3):
            for block in range(8):
                if error_of(s.write, "counts", np.full(40000, block, dtype=np.int32), block):
                    refused += 1  # told, and goes on as a code that does not check would
            s.end_iteration()
        report(refused=refused)
"""


@pytest.mark.parametrize("architecture", [DC.replace('"3"', '"2"'),
                                          '<dedicated cores="0" nodes="1"/>'
                                          '<virtual-nodes ranks-per-node="1"/>'])
def test_writes_refused_with_an_error_are_counted_and_fail_ecluse_run(tmp_path, architecture):
    """Writes refused with ECLUSE_ALLOCATION_ERROR (an iteration larger than a client's room)
    left a report saying "complete", no loss and every iteration written: a harness trusting it
    saw a clean run. They are counted (client.refused_writes), said in the summary, and
    `ecluse run` exits 1 when the program ended 0."""
    xml = TOO_MANY_BLOCKS.replace("ARCHITECTURE", architecture).replace("DOMAINS", "8")
    (tmp_path / "bind.xml").write_text(xml)
    (tmp_path / "script.py").write_text(PRELUDE + textwrap.dedent(REFUSED_AND_GOING_ON))
    result = subprocess.run([sys.executable, "-m", "ecluse", "run", "--", mpiexec(), "-n", "2",
                             sys.executable, "script.py"], cwd=tmp_path, env=child_env(),
                            capture_output=True, text=True, timeout=180)
    (r,) = results(result.stdout)
    assert r["refused"] > 0, r
    report = json.loads((tmp_path / "bind-report.json").read_text())
    assert report["statistics"]["client.refused_writes"] == r["refused"], report["statistics"]
    assert (f"  NOT HANDED OVER: {r['refused']} write(s) refused with an error (a variable or "
            "block the configuration does not declare, a block too large for the room a client "
            "has, a second write of a block in one iteration, its server gone, ...): their data "
            "is not stored (the errors above say why)"
            ) in result.stdout, result.stdout
    assert result.returncode == 1, result.stdout + result.stderr
    assert (f"bind-report.json: {r['refused']} write(s) refused with an error "
            "(client.refused_writes)") in result.stderr, result.stderr


MANY_BLOCKS = """
with ecluse.Session("bind.xml") as s:
    if s.is_client:
        for it in range(3):
            for block in range(300):
                s.write("counts", np.full(3, block, dtype=np.int32), block)
            s.end_iteration()
        s.stop()
        report(waits=s.statistic("dc.queue_waits"), seconds=s.statistic("dc.queue_wait_seconds"))
"""


@pytest.mark.parametrize("queue", ["", '<queue size="64"/>'])
def test_an_iteration_larger_than_the_event_queue(tmp_path, queue):
    """A client handing over more blocks than its dedicated core's event queue holds (1024 by
    default) waited for the server to take each one, 4x the cost of a block, and the report put
    that in the write phase with no wait counted. The queue is now sized from the data (two
    iterations); a <queue size> too small is kept, warned at initialize, and its waits counted."""
    xml = CONFIG.replace("ARCHITECTURE", DC.replace('"3"', '"2"') + queue).replace(
        "DOMAINS", "300")
    result = run_plain(tmp_path, 2, xml, MANY_BLOCKS)
    assert result.returncode == 0, result.stdout + result.stderr
    (r,) = results(result.stdout)
    warned = re.findall(r"warning: an iteration may put (\d+) messages .* which holds (\d+): "
                        r"<queue size> \(64, at bind\.xml:2:\d+\).* set <queue size=\"(\d+)\"/>",
                        result.stderr)
    if queue:
        # 4 variables of 300 domains, an end and a signal: 1202 messages, the queue 64.
        assert warned == [("1202", "64", "4096")], result.stderr
        assert r["waits"] >= 1 and r["seconds"] > 0, r
        stats = json.loads((tmp_path / "bind-report.json").read_text())["statistics"]
        assert stats["dc.queue_waits"] == r["waits"], stats
    else:
        assert "event queue" not in result.stderr, result.stderr
        assert r["waits"] == 0, r
    import h5py
    for it in range(3):
        with h5py.File(tmp_path / "out" / f"bind_It{it}_Pr0.h5", "r") as f:
            blocks = f["counts/P0"]
            assert sorted(blocks) == sorted(f"B{b}" for b in range(300))
            for name, d in blocks.items():
                assert list(d[()]) == [int(name[1:])] * 3, name

