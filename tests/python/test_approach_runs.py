"""The profile's approach runs (issue 15): configurations rewritten for TP, DC(1) and DN(1:1),
what a run report says of one approach, the interference fit, the fixed overhead, and the
model's use of the measured terms, against values computed by hand."""
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
from ecluse import approach_runs as ar  # noqa: E402
from ecluse.model import (AppModel, Approach, ApproachTerms, Bandwidth,  # noqa: E402
                          ModelOptions, Platform, Scalability, Workload, predict)
from ecluse.report import Report  # noqa: E402

TP_XML = """<?xml version="1.0"?>
<simulation name="s" xmlns="urn:ecluse:config:1">
  <architecture>
    <domains count="1"/>
    <dedicated cores="0" nodes="0"/>
  </architecture>
  <data/>
</simulation>
"""

DAMARIS_XML = """<simulation name="d" language="c" xmlns="http://damaris.gforge.inria.fr/damaris/model">
<architecture>
  <domains count="1"/>
  <dedicated cores="1"
             nodes="0"/>
  <buffer name="buffer" size="4096"/>
  <placement/>
</architecture>
</simulation>
"""


def approx(x):
    return pytest.approx(x, rel=1e-9)


# --- configurations -----------------------------------------------------------------------------

def test_dc_config_sets_dedicated_and_adds_a_buffer():
    out = ar.approach_config(TP_XML, 1, 0, 3 * ar.MIB + 1)
    assert '<dedicated cores="1" nodes="0"/>' in out
    assert '<buffer name="ecluse-buffer" size="4MiB"/>' in out   # 3 MiB + 1 B, whole MiB up
    assert out.count("<dedicated") == 1
    # Nothing else changed: the rest of the file line for line.
    assert out.replace('<dedicated cores="1" nodes="0"/>', '<dedicated cores="0" nodes="0"/>') \
        .replace('  <buffer name="ecluse-buffer" size="4MiB"/>\n  ', "") == TP_XML


def test_tp_config_has_no_buffer_added():
    assert ar.approach_config(TP_XML, 0, 0, 64 * ar.MIB) == TP_XML


def test_damaris_config_keeps_namespace_and_grows_a_small_buffer():
    out = ar.approach_config(DAMARIS_XML, 0, 1, 16 * ar.MIB)
    assert 'xmlns="http://damaris.gforge.inria.fr/damaris/model"' in out
    assert '<dedicated cores="0" nodes="1"/>' in out and "cores=\"1\"" not in out
    assert '<buffer name="buffer" size="16MiB"/>' in out
    assert "<placement/>" in out


def test_a_large_enough_buffer_is_kept():
    xml = TP_XML.replace("<domains", '<buffer name="b" size="1GiB"/>\n    <domains')
    out = ar.approach_config(xml, 1, 0, 64 * ar.MIB)
    assert '<buffer name="b" size="1GiB"/>' in out and "ecluse-buffer" not in out


def test_a_config_without_architecture_is_refused_with_the_fix():
    with pytest.raises(ValueError) as e:
        ar.approach_config("<simulation/>", 1, 0, 1, "/x/sim.xml")
    assert str(e.value) == (
        "/x/sim.xml: no <architecture> element: the profile cannot set up its DC and DN runs "
        "(add <architecture> with <dedicated cores=\"0\" nodes=\"0\"/>, or profile with "
        "--no-approaches)")


def test_config_index():
    assert ar.config_index(["./app", "--config", "a.xml", "b.xml"]) == 2
    assert ar.config_index(["./app", "sim.xml", "10"]) == 1
    assert ar.config_index(["./app", "x.xml", "y.xml"], config="y.xml") == 2
    assert ar.config_index(["./app", "10"]) is None


# --- one run's report ---------------------------------------------------------------------------

def role(wall, phases, cpu=None, ranks=1):
    return {"ranks": ranks, "wall_s": wall, "cpu_s": cpu if cpu is not None else wall,
            "cpu_usage_percent": (cpu if cpu is not None else wall) / wall * 100,
            "phases": {k: {"wall_s": w, "cpu_s": c} for k, (w, c) in phases.items()}}


def dc_report():
    """A DC(1) run: 1 client, 20 iterations, 4 outputs of 8e6 B; the client's phases sum to
    the completion time 1.0 s; the server stores 0.02 s per output at 50% CPU."""
    return Report.from_dict({
        "schema": "ecluse-report/2", "approach": "dc", "completion_time_s": 1.0,
        "architecture": {"dedicated_cores": 1, "ranks_per_node": 2}, "ranks": 2, "nodes": 1,
        "roles": {"simulation": role(1.0, {"setup": (0.1, 0.1), "compute": (0.8, 0.8),
                                           "write": (0.04, 0.04), "wait": (0.06, 0.0)}),
                  "dedicated-core": role(1.0, {"store": (0.08, 0.04), "idle": (0.75, 0.0)},
                                         cpu=0.2)},
        "iterations": {"count": 20, "outputs": {"count": 4, "every": 5, "every_max": 5},
                       "client_bytes": {"sum": 32e6},
                       "client_write_s": {"slowest_rank_mean": 0.025},
                       "server_store_s": {"slowest_rank_mean": 0.02}}})


def test_point_from_a_dc_report_and_the_programs_loop_time():
    p = ar.point(ar.APPROACH_RUNS[1], dc_report(), {"wall_time_s": 0.85}, 5)
    # The loop (0.85 s) minus the hand-over (0.04) and the wait (0.06): 0.75 s of compute.
    assert p["compute_s"] == approx(0.75)
    assert (p["copy_s"], p["wait_s"], p["store_s"]) == (0.04, 0.06, 0.0)
    assert p["bytes_per_output"] == approx(8e6)
    assert p["store_s_per_output"] == 0.02 and p["store_writers"] == 1
    assert p["copy_bytes_per_s"] == approx(8e6 / 0.01)       # 0.04 s over 4 outputs
    assert p["io_busy"] == approx(0.5) and p["idle_fraction"] == approx(0.75)
    assert p["cpu_percent"] == {"simulation": approx(100.0), "dedicated-core": approx(20.0)}
    # Without the program's loop time: the report's compute phase.
    assert ar.point(ar.APPROACH_RUNS[1], dc_report(), {}, 5)["compute_s"] == approx(0.8)


def test_point_of_a_run_without_output_is_refused():
    doc = dict(dc_report().data)
    doc["iterations"] = dict(doc["iterations"], outputs={"count": 0})
    with pytest.raises(ValueError, match="dc run: its report has no simulation role, iteration "
                                         r"or output \(every 5\)"):
        ar.point(ar.APPROACH_RUNS[1], Report.from_dict(doc), {}, 5)


# --- fits ---------------------------------------------------------------------------------------

def synthetic(iterations, every, t0, factor, per_output, bytes_per_output=8e6):
    outputs = iterations // every
    return {"iterations": iterations, "outputs": outputs, "clients": 1, "output_every": every,
            "bytes_per_output": bytes_per_output,
            "compute_s": iterations * t0 * (1 + factor) + outputs * per_output}


def test_interference_fit_recovers_factor_and_per_output_cost():
    pts = [synthetic(200, 5, 0.01, 0.04, 0.003), synthetic(200, 20, 0.01, 0.04, 0.003)]
    a, b, ref = ar.fit_interference(pts, 0.01)
    assert a == pytest.approx(0.04, rel=1e-6) and b == pytest.approx(0.003, rel=1e-6)
    assert ref == 8e6


def test_interference_fit_with_one_interval_is_a_factor():
    a, b, _ = ar.fit_interference([synthetic(100, 10, 0.02, 0.1, 0.0)], 0.02)
    assert (a, b) == (pytest.approx(0.1), 0.0)


def test_interference_fit_never_negative():
    # Compute faster with output than without (noise): neither term goes below 0.
    pts = [synthetic(200, 5, 0.01, -0.05, 0.0), synthetic(200, 20, 0.01, -0.05, 0.0)]
    assert ar.fit_interference(pts, 0.01)[:2] == (0.0, 0.0)
    # A per-output cost but a negative factor: per output alone.
    pts = [synthetic(200, 5, 0.01, 0.0, 0.004), synthetic(200, 50, 0.01, 0.0, 0.004)]
    pts[1]["compute_s"] -= 0.05
    a, b, _ = ar.fit_interference(pts, 0.01)
    assert a == 0.0 and b > 0


APP = AppModel(0.01, Scalability(points=((1.0, 0.01), (2.0, 0.005))), Scalability(),
               Bandwidth((1,), (4e8,)), Bandwidth((1,), (8e8,)), overhead_s=0.05)


def test_overhead_is_what_the_other_terms_leave():
    # DC(1), 1 client: compute 100 x 0.01 = 1 s, 10 outputs of 8e6 B: copy 0.01 s each at the
    # measured 8e8 B/s, store 0.02 s (4e8 B/s) < interval 0.1 s, last drain 0.02 s (no tail):
    # 1 + 0.1 + 0.02 = 1.12 s without the overhead; measured 1.42 s -> 0.3 s.
    p = dict(synthetic(100, 10, 0.01, 0.0, 0.0), completion_s=1.42, store_s_per_output=0.02,
             store_writers=1, copy_bytes_per_s=8e8, io_busy=0.5, idle_fraction=0.9,
             cpu_percent={"simulation": 95.0, "dedicated-core": 10.0})
    t = ar.terms_for(ar.APPROACH_RUNS[1], [p], APP, 2)
    assert t.overhead_s == approx(0.3) and t.residual == pytest.approx(0.0, abs=1e-12)
    assert t.store_bytes_per_s == approx(4e8) and t.copy_bytes_per_s == approx(8e8)
    assert dict(t.cpu) == {"simulation": 95.0, "dedicated-core": 10.0} and t.runs == 1
    assert ApproachTerms.from_json(t.to_json()) == t


def test_the_overhead_is_measured_beside_each_runs_own_compute_phase():
    # TP, 1 client, 200 iterations at every 5, 20 and 50 (40, 10, 4 outputs of 8e6 B, stored at
    # 2e8 B/s: 0.04 s each). The machine computed at 2.0, 2.3 and 1.9 s (t0 2.0 s: factor fit
    # over the three), and each run spent 0.1 s beyond its compute phase and its stores.
    def run(every, compute):
        p = synthetic(200, every, 0.01, 0.0, 0.0)
        return dict(p, compute_s=compute, completion_s=compute + p["outputs"] * 0.04 + 0.1,
                    store_s_per_output=0.04, store_writers=1, copy_bytes_per_s=None,
                    io_busy=None, idle_fraction=None, cpu_percent={"simulation": 99.0})
    pts = [run(5, 2.0), run(20, 2.3), run(50, 1.9)]
    t = ar.terms_for(ar.APPROACH_RUNS[0], pts, APP, 2)
    # The fitted compute (2.0 x (1 + factor)) misses each run's by up to 0.2 s; the overhead
    # does not take that up: completion - compute - stores is 0.1 s in every run.
    assert t.compute_factor > 0.0
    assert t.overhead_s == approx(0.1)


# --- the model with measured terms --------------------------------------------------------------

def with_terms(**terms):
    return AppModel(APP.t_base_s, APP.s_cores, APP.s_cores, APP.bandwidth, APP.copy,
                    APP.overhead_s, terms=tuple(sorted(terms.items())))


TP_TERMS = ApproachTerms(compute_factor=0.1, per_output_s=0.002, bytes_per_client=4e6,
                         overhead_s=0.2, store_bytes_per_s=2e8, store_writers=1)
ONE = Platform(1, 1, host_cpus=2)


def test_tp_with_terms():
    w = Workload(100, 10, 8e6)
    # compute 1 s x 1.1 + 10 outputs x 0.002 s x (8e6 / 4e6 bytes per client) = 1.14 s;
    # store 8e6 / 2e8 = 0.04 s x 10 = 0.4 s; overhead 0.2 s: 1.74 s.
    p = predict(with_terms(tp=TP_TERMS), ONE, w, Approach("tp"))
    assert p.compute_s == approx(1.14) and p.io_s == approx(0.4) and p.time_s == approx(1.74)
    # The switch off: the profile's curve (8e6 / 4e8 = 0.02 s per output), its overhead 0.05 s.
    off = ModelOptions.extended(approach_terms=False)
    assert predict(with_terms(tp=TP_TERMS), ONE, w, Approach("tp"), off).time_s == approx(1.25)
    # Without output nothing is added but the overhead.
    assert predict(with_terms(tp=TP_TERMS), ONE, Workload(100), Approach("tp")).time_s \
        == approx(1.2)


def test_tp_terms_scale_along_the_bandwidth_curve():
    app = AppModel(0.01, Scalability(points=((1.0, 0.01), (2.0, 0.005))), Scalability(),
                   Bandwidth((1, 2), (4e8, 6e8)), terms=(("tp", TP_TERMS),))
    # 2 writers: the curve's 6e8 x (measured 2e8 / curve's 4e8 at 1 writer) = 3e8 B/s.
    p = predict(app, Platform(1, 2, host_cpus=2), Workload(100, 10, 6e6), Approach("tp"))
    assert p.io_s == approx(10 * 6e6 / 3e8)


def test_tp_with_a_client_per_cpu_uses_the_terms_measured_so():
    # The profile also runs TP with one client per CPU (key tp@2): its clients write at once
    # and the kernel's write-back competes with their compute, which the one-client run and the
    # bandwidth curve (back-to-back writes) do not show.
    both = ApproachTerms(compute_factor=0.2, per_output_s=0.0, bytes_per_client=3e6,
                         overhead_s=0.1, store_bytes_per_s=1e8, store_writers=2)
    app = AppModel(0.01, Scalability(points=((1.0, 0.01), (2.0, 0.005))), Scalability(),
                   Bandwidth((1, 2), (4e8, 6e8)), terms=(("tp", TP_TERMS), ("tp@2", both)))
    assert [r.key for r in ar.approach_runs(2)] == ["tp", "dc", "dn", "tp@2"]
    assert [r.key for r in ar.approach_runs(1)] == ["tp", "dc", "dn"]
    assert ar.approach_runs(4)[-1] == ar.ApproachRun("tp", 4, 4, 0, 0, clients=4)
    assert app.terms_for("tp", 2) is both and app.terms_for("tp", 1) is TP_TERMS
    assert app.terms_for("tp", 3) is TP_TERMS  # not measured: the one-client terms
    # 2 clients on one node: compute 100 x 0.005 s x 1.2 = 0.6 s; store 6e6 / 1e8 (measured
    # at 2 writers, so the curve does not scale it) = 0.06 s x 10; overhead 0.1 s: 1.3 s.
    p = predict(app, Platform(1, 2, host_cpus=2), Workload(100, 10, 6e6), Approach("tp"))
    assert p.compute_s == approx(0.6) and p.io_s == approx(0.6) and p.time_s == approx(1.3)
    # 1 client: the one-client terms, as before.
    one = predict(app, ONE, Workload(100, 10, 8e6), Approach("tp"))
    assert one.time_s == approx(predict(with_terms(tp=TP_TERMS), ONE, Workload(100, 10, 8e6),
                                        Approach("tp")).time_s)


def test_tp_power_while_writing_is_its_own_runs_store_cpu_share():
    # TP's writers are busy at the store CPU share their own runs measured (two clients on a
    # 2-CPU host: 0.47 in the demo's profile), not at the profile's single-writer figure (0.71):
    # the dedicated approaches already took theirs, and TP's I/O power was 7% too high.
    both = ApproachTerms(compute_factor=0.2, bytes_per_client=3e6, overhead_s=0.1,
                         store_bytes_per_s=1e8, store_writers=2, io_busy=0.4)
    app = AppModel(0.01, Scalability(points=((1.0, 0.01), (2.0, 0.005))), Scalability(),
                   Bandwidth((1, 2), (4e8, 6e8)), terms=(("tp", TP_TERMS), ("tp@2", both)),
                   io_busy=0.9)
    p = predict(app, Platform(1, 2, host_cpus=2), Workload(100, 10, 6e6), Approach("tp"))
    # Compute 0.6 s and overhead 0.1 s at full load (250 W); 0.6 s of stores with both ranks
    # at 0.4 of a CPU: 100 + 150 x 0.4 = 160 W.
    assert p.energy_j == approx(0.7 * 250 + 0.6 * 160)


def test_dc_with_terms():
    dc = ApproachTerms(compute_factor=0.05, bytes_per_client=8e6, overhead_s=0.3,
                       store_bytes_per_s=1e8, copy_bytes_per_s=4e8, io_busy=0.5)
    w = Workload(100, 10, 8e6)
    # DC(1) on a 2-rank virtual node, 1 client: compute 1 s x 1.05 = 1.05 s, copy 8e6 / 4e8 =
    # 0.02 s x 10; store 0.08 s per output < interval 0.105 + 0.02 s: only the last drain
    # (0.08 s) blocks; overhead 0.3 s: 1.05 + 0.2 + 0.08 + 0.3 = 1.63 s.
    p = predict(with_terms(dc=dc), Platform(1, 2, host_cpus=2), w,
                Approach("dc", dedicated_cores=1), ModelOptions.extended())
    assert p.compute_s == approx(1.05) and p.blocked_s == approx(0.08)
    assert p.time_s == approx(1.63)
    # Power on the 2-CPU host: the client busy but while blocked (1 - 0.08 / 1.63), the server
    # at its measured store CPU share 0.5 for its 0.8 s of stores over 1.63 s.
    load = (1 - 0.08 / 1.63) + 0.8 / 1.63 * 0.5
    assert p.power_w == approx(100 + 150 * load / 2)


def test_one_disturbed_repeat_does_not_move_the_terms():
    # Three repeats at each interval; one run at every 5 computed 30% slower (another process
    # took the CPU): the median of each interval's repeats fits the undisturbed terms.
    def run(every, factor):
        return dict(synthetic(200, every, 0.01, factor, 0.003), completion_s=3.0,
                    store_s_per_output=0.02, store_writers=1, copy_bytes_per_s=None,
                    io_busy=None, idle_fraction=None, cpu_percent={"simulation": 99.0})
    pts = [run(5, 0.04), run(5, 0.34), run(5, 0.04), run(20, 0.04), run(20, 0.04),
           run(20, 0.04)]
    merged = ar.median_points(pts)
    assert [p["output_every"] for p in merged] == [5, 20]
    assert merged[0]["compute_s"] == approx(200 * 0.01 * 1.04 + 40 * 0.003)
    a, b, _ = ar.fit_interference(merged, 0.01)
    assert a == pytest.approx(0.04, rel=1e-6) and b == pytest.approx(0.003, rel=1e-6)
    t = ar.terms_for(ar.APPROACH_RUNS[0], pts, APP, 2)
    assert t.runs == 6 and t.compute_factor == pytest.approx(0.04, rel=1e-6)


def test_point_keeps_the_interval_the_run_had():
    # An I/O kernel writes at every step whatever {output_every} asked: the report's interval
    # (5 here) is the one the model must predict the run with, not the 20 asked for.
    assert ar.point(ar.APPROACH_RUNS[1], dc_report(), {}, 20)["output_every"] == 5


# --- the command's launcher ---------------------------------------------------------------------

def test_a_leading_launcher_and_its_options_are_stripped():
    from ecluse.profile import strip_launcher
    assert strip_launcher(["./app", "sim.xml"]) == (["./app", "sim.xml"], [])
    assert strip_launcher(["mpiexec", "-n", "4", "./app", "sim.xml"]) == \
        (["./app", "sim.xml"], ["mpiexec", "-n", "4"])
    assert strip_launcher(["/usr/bin/mpirun.openmpi", "--oversubscribe", "-np", "8", "--mca",
                           "btl", "self,vader", "-x", "OMP_NUM_THREADS", "--map-by=core",
                           "python3", "sim.py", "-n", "3"]) == \
        (["python3", "sim.py", "-n", "3"],
         ["/usr/bin/mpirun.openmpi", "--oversubscribe", "-np", "8", "--mca", "btl",
          "self,vader", "-x", "OMP_NUM_THREADS", "--map-by=core"])
    assert strip_launcher(["srun", "--ntasks", "4", "./app"]) == (["./app"],
                                                                 ["srun", "--ntasks", "4"])
    with pytest.raises(ValueError, match="'mpiexec -n 4': no program after the launcher's "
                                         "options"):
        strip_launcher(["mpiexec", "-n", "4"])


def test_a_per_output_cost_inside_the_noise_is_not_kept():
    # Every 5 and every 20 differ by 30 outputs; a per-output cost of 1 ms would add 0.03 s
    # between them, less than the 0.2 s their repeats spread by: the factor alone is fitted.
    def run(every, factor, extra=0.0):
        p = synthetic(200, every, 0.01, factor, 0.001)
        p["compute_s"] += extra
        return dict(p, completion_s=3.0, store_s_per_output=0.02, store_writers=1,
                    copy_bytes_per_s=None, io_busy=None, idle_fraction=None,
                    cpu_percent={"simulation": 99.0})
    pts = [run(5, 0.05, -0.1), run(5, 0.05), run(5, 0.05, 0.1), run(20, 0.05), run(20, 0.05)]
    merged = ar.median_points(pts)
    assert merged[0]["compute_spread_s"] == approx(0.2) and merged[1]["compute_spread_s"] == 0
    a, b, _ = ar.fit_interference(merged, 0.01)
    assert b == 0.0 and a == pytest.approx(0.05 + (40 + 10) * 0.001 / (2 * 2.0), rel=1e-6)
    # The same points without the spread: the per-output cost is kept.
    a, b, _ = ar.fit_interference([dict(p, compute_spread_s=0.0) for p in merged], 0.01)
    assert b == pytest.approx(0.001, rel=1e-6)


def test_profile_notes_a_vm_that_gives_free_memory_back(tmp_path):
    """On a VM with free page reporting active, a run after a pause faults its memory in again:
    the profile says so, and how to stop it; otherwise it says nothing."""
    from ecluse.page_reporting import note as page_reporting_note
    parameter, buddyinfo = tmp_path / "order", tmp_path / "buddyinfo"
    buddyinfo.write_text("Node 0, zone   Normal  " + "  1" * 11 + "\n")
    parameter.write_text("9\n")
    assert page_reporting_note(str(parameter), str(buddyinfo)) == (
        "note: this machine gives memory free for about 2 s back to its host (free page "
        "reporting, page_reporting_order 9): a run after a pause faults it in again, so times "
        f"vary with the pauses between runs; as root, write 11 to {parameter} while profiling "
        "and running (then 9 again) for steadier times")
    parameter.write_text("11\n")  # paused
    assert page_reporting_note(str(parameter), str(buddyinfo)) == ""
    assert page_reporting_note(str(tmp_path / "absent"), str(buddyinfo)) == ""
