"""The energy model: the paper's formulas (seed 002 §3) and every extension switch, against
values computed by hand (the arithmetic is in the comments)."""
import pathlib
import sys
from dataclasses import replace

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
from ecluse.model import (AppModel, Approach, Bandwidth, ModelOptions, Platform,  # noqa: E402
                          Scalability, Workload, blocked_time, candidate_approaches,
                          paper_energy, paper_power_dc, paper_power_dn, paper_time, predict)

PERFECT = Scalability()
PAPER = ModelOptions.paper()
# Rennes-like platform of seed 002 §4.1: 16 nodes of 24 cores, CM1's T_base = 18.1 s.
RENNES = Platform(16, 24, idle_watts=100, max_watts=250)
CM1 = AppModel(18.1, PERFECT, PERFECT, Bandwidth((1,), (1e9,)))
CM1_RUN = Workload(2520, 30, 373e6)


def approx(x):
    return pytest.approx(x, rel=1e-9)


# --- the paper, exactly --------------------------------------------------------------------

def test_paper_time_perfect_scaling():
    # 18.1 / ((24 * 1) * (16 * 1)) * 2520 = 18.1 * 6.5625 = 118.78125
    assert paper_time(18.1, PERFECT, PERFECT, 24, 16, 2520) == approx(118.78125)


def test_paper_time_with_scalability_functions():
    cores = Scalability(serial=0.1, parallel=0.9)   # t(1) = 1, t(4) = 0.1 + 0.225 = 0.325
    nodes = Scalability(parallel=1.0, log=0.05)     # t(1) = 1, t(2) = 0.5 + 0.05 = 0.55
    assert cores(4) == approx(1 / (4 * 0.325))      # s = t(1) / (k t(k)) = 0.769...
    assert nodes(2) == approx(1 / (2 * 0.55))
    # speedups 1/0.325 and 1/0.55: 10 * 100 * 0.325 * 0.55 = 178.75
    assert paper_time(10, cores, nodes, 4, 2, 100) == approx(178.75)


def test_paper_power():
    assert paper_power_dc(250) == 250
    # (15 * 250 + 1 * (100 + 250) / 2) / 16 = (3750 + 175) / 16 = 245.3125
    assert paper_power_dn(15, 1, 100, 250) == approx(245.3125)
    # (14 * 250 + 2 * 175) / 16 = 3850 / 16 = 240.625
    assert paper_power_dn(14, 2, 100, 250) == approx(240.625)
    assert paper_energy(10.0, 245.3125) == approx(2453.125)


def test_predict_paper_dc_and_dn():
    dc = predict(CM1, RENNES, CM1_RUN, Approach("dc", dedicated_cores=1), PAPER)
    # n_cores = the 23 cores the simulation uses: 18.1 * 2520 / (23 * 16) = 45612 / 368 s;
    # P = P_max; E = 45612 / 368 * 250 * 16 = 495782.6087 J
    assert dc.time_s == approx(45612 / 368)
    assert dc.power_w == approx(250)
    assert dc.energy_j == approx(495782.6086956522)
    dn = predict(CM1, RENNES, CM1_RUN, Approach("dn", dedicated_nodes=1), PAPER)
    # 18.1 * 2520 / (24 * 15) = 45612 / 360 = 126.7 s; E = 126.7 * 245.3125 * 16 = 126.7 * 3925
    assert dn.label == "DN(15:1)"
    assert dn.time_s == approx(126.7)
    assert dn.power_w == approx(245.3125)
    assert dn.energy_j == approx(497297.5)


def test_paper_tp_is_compute_only():
    tp = predict(CM1, RENNES, CM1_RUN, Approach("tp"), PAPER)
    assert tp.time_s == approx(118.78125) and tp.io_s == 0 and tp.power_w == approx(250)


# --- extensions, one switch at a time --------------------------------------------------------

def test_tp_io_time_from_bandwidth():
    opts = ModelOptions(tp_io=True, blocking=False, lose_dedicated_cores=False)
    tp = predict(CM1, RENNES, CM1_RUN, Approach("tp"), opts)
    # 373e6 B / 1e9 B/s = 0.373 s per output, 2520 / 30 = 84 outputs: 31.332 s
    assert tp.io_s == approx(31.332)
    assert tp.time_s == approx(118.78125 + 31.332)
    # 16 * (118.78125 * 250 + 31.332 * (100 + 150 * 0.5)) = 16 * (29695.3125 + 5483.1)
    assert tp.energy_j == approx(16 * 35178.4125)


def test_bandwidth_interpolates_in_log_writers_and_clamps():
    bw = Bandwidth((1, 4), (100.0, 300.0))
    assert bw.at(2) == approx(200.0)      # log2 2 is half-way between log2 1 and log2 4
    assert bw.at(64) == 300.0 and bw.at(1) == 100.0


def test_lose_dedicated_cores():
    dc = predict(CM1, RENNES, CM1_RUN, Approach("dc", dedicated_cores=2), PAPER)
    # 18.1 * 2520 / (22 * 16) = 45612 / 352 = 129.579545...
    assert dc.time_s == approx(45612 / 352)
    assert dc.power_w == approx(250)      # paper power: busy-polling dedicated cores
    keep = ModelOptions(tp_io=False, blocking=False, lose_dedicated_cores=False)
    dc = predict(CM1, RENNES, CM1_RUN, Approach("dc", dedicated_cores=2), keep)
    assert dc.time_s == approx(118.78125)  # switch off: all 24 cores compute


SMALL = Platform(2, 2)                     # 2 nodes of 2 cores, 100 W / 250 W
SMALL_APP = AppModel(4.0, PERFECT, PERFECT, Bandwidth((1,), (1e9,)))


def test_blocking_when_io_exceeds_the_output_interval():
    # DC(1): 1 core x 2 nodes compute: 4 * 10 / 2 = 20 s, 2 s per iteration. Each output
    # (6e9 B at 1e9 B/s on 2 writers) takes 6 s against a 2 s interval: 9 outputs wait 4 s,
    # the last drains 6 s with no iteration after it: 36 + 6 = 42 s blocked.
    w = Workload(10, 1, 6e9)
    dc = predict(SMALL_APP, SMALL, w, Approach("dc", dedicated_cores=1), ModelOptions())
    assert dc.compute_s == approx(20) and dc.blocked_s == approx(42) and dc.time_s == approx(62)
    # Every 5 iterations: 10 s interval > 6 s, only the last output's drain remains.
    w5 = Workload(10, 5, 6e9)
    assert predict(SMALL_APP, SMALL, w5, Approach("dc", dedicated_cores=1)).time_s == approx(26)
    no_block = ModelOptions(blocking=False)
    assert predict(SMALL_APP, SMALL, w, Approach("dc", dedicated_cores=1), no_block).time_s == 20


def test_blocked_time_overlaps_the_tail():
    # 3 outputs of 5 s, interval 4 s: 2 * 1 + last drain 5 - 3 s of tail = 4
    assert blocked_time(5, 4, 3, 3) == approx(4)
    assert blocked_time(5, 4, 3, 0) == 0


def test_measured_idle_fraction():
    opts = ModelOptions(tp_io=False, blocking=False, lose_dedicated_cores=True, idle_fraction=0.8)
    dn = predict(CM1, RENNES, CM1_RUN, Approach("dn", dedicated_nodes=1), opts)
    # dedicated node busy 0.2: 100 + 150 * 0.2 = 130 W; (15 * 250 + 130) / 16 = 242.5
    assert dn.power_w == approx(242.5)
    node4 = Platform(16, 4)
    opts = ModelOptions(tp_io=False, blocking=False, idle_fraction=0.9)
    dc = predict(CM1, node4, CM1_RUN, Approach("dc", dedicated_cores=1), opts)
    # 3 busy cores + 1 core busy 10%: u = 3.1 / 4 = 0.775; 100 + 150 * 0.775 = 216.25
    assert dc.power_w == approx(216.25)


def test_idle_fraction_from_io_time():
    opts = ModelOptions(tp_io=False, blocking=True, idle_fraction="io")
    w = Workload(10, 5, 6e9)               # as above: 26 s, 2 outputs of 6 s written
    dn_app = AppModel(4.0, PERFECT, PERFECT, Bandwidth((1,), (1e9,)))
    dn = predict(dn_app, Platform(3, 2), w, Approach("dn", dedicated_nodes=1), opts)
    # 2 nodes x 2 cores compute: 4 * 10 / 4 = 10 s, 1 s per iteration, interval 5 s < 6 s:
    # blocked 1 * 1 + 6 (drain) = 7 s, T = 17 s; the dedicated node stores 12 / 17 of the time
    # at half its CPU (tp_io_busy 0.5 without a profile's figure): P_ded = 100 + 150 * 6 / 17;
    # the clients sleep while blocked: P_sim = 100 + 150 * 10 / 17
    p_ded, p_sim = 100 + 150 * 6 / 17, 100 + 150 * 10 / 17
    assert dn.time_s == approx(17)
    assert dn.power_w == approx((2 * p_sim + p_ded) / 3)
    busy = predict(dn_app, Platform(3, 2), w, Approach("dn", dedicated_nodes=1),
                   replace(opts, blocked_clients_sleep=False))
    assert busy.power_w == approx((2 * 250 + p_ded) / 3)


def test_dvfs_of_dedicated_resources():
    cubic = ModelOptions(tp_io=False, blocking=False, dvfs_frequency=0.5, dvfs_exponent=3)
    dn = predict(CM1, RENNES, CM1_RUN, Approach("dn", dedicated_nodes=1), cubic)
    # busy 1/2 * 0.5^3 = 0.0625: 100 + 150 * 0.0625 = 109.375; (3750 + 109.375) / 16
    assert dn.power_w == approx(241.2109375)
    linear = ModelOptions(tp_io=False, blocking=False, dvfs_frequency=0.5, dvfs_exponent=1)
    dn = predict(CM1, RENNES, CM1_RUN, Approach("dn", dedicated_nodes=1), linear)
    # busy 1/2 * 0.5 = 0.25: 137.5 W; (3750 + 137.5) / 16 = 242.96875
    assert dn.power_w == approx(242.96875)
    slow_io = ModelOptions(dvfs_frequency=0.5, dvfs_io_exponent=1)
    w = Workload(10, 5, 2e9)
    base = predict(SMALL_APP, SMALL, w, Approach("dc", dedicated_cores=1))
    slow = predict(SMALL_APP, SMALL, w, Approach("dc", dedicated_cores=1), slow_io)
    assert slow.io_s == approx(2 * base.io_s)   # I/O time ~ f^-1 at half frequency


def test_virtual_nodes_on_one_host():
    # 2 virtual nodes of 1 core on a 4-CPU host: 2 ranks, T = 4 * 10 / 2 = 20 s; the host is
    # half loaded: 100 + 150 * 0.5 = 175 W, and there is one physical node: E = 20 * 175
    host = Platform(2, 1, host_cpus=4)
    tp = predict(SMALL_APP, host, Workload(10), Approach("tp"))
    assert tp.time_s == approx(20) and tp.power_w == approx(175) and tp.energy_j == approx(3500)


def test_candidates_follow_the_node_count():
    labels = [a.label(16) for a in candidate_approaches(RENNES)]
    assert labels == ["TP", "DC(1)", "DC(2)", "DN(1:1)", "DN(3:1)", "DN(7:1)", "DN(15:1)"]
    assert [a.label(4) for a in candidate_approaches(Platform(4, 2))] == \
        ["TP", "DC(1)", "DN(1:1)", "DN(3:1)"]
    assert [a.label(5) for a in candidate_approaches(Platform(5, 1))] == ["TP", "DN(4:1)"]


def test_impossible_approaches_are_refused():
    with pytest.raises(ValueError, match="DC\\(2\\) needs 1..1"):
        predict(SMALL_APP, SMALL, Workload(1), Approach("dc", dedicated_cores=2))
    with pytest.raises(ValueError, match="dedicated nodes needs 1..1"):
        predict(SMALL_APP, SMALL, Workload(1), Approach("dn", dedicated_nodes=2))


def test_xml_fragment():
    assert Approach("dc", dedicated_cores=1).xml() == '<dedicated cores="1" nodes="0"/>'
    assert Approach("dn", dedicated_nodes=2).xml() == '<dedicated cores="0" nodes="2"/>'


# --- client copy and fixed overhead ------------------------------------------------------------

COPY_APP = AppModel(4.0, PERFECT, PERFECT, Bandwidth((1,), (1e9,)),
                    copy=Bandwidth((1, 2), (2e9, 1e9)), overhead_s=0.5)


def test_client_copy_of_dc_and_dn():
    w = Workload(10, 5, 2e9)
    only_copy = ModelOptions(blocking=False, fixed_overhead=False)
    # DC(1) on 2 nodes of 2 cores: 2 clients, 4 * 10 / 2 = 20 s of compute; each client copies
    # 2e9 / 2 = 1e9 B at 1e9 B/s (2 clients copying) = 1 s per output, 2 outputs: 22 s
    dc = predict(COPY_APP, SMALL, w, Approach("dc", dedicated_cores=1), only_copy)
    assert dc.compute_s == approx(20) and dc.time_s == approx(22)
    # DN(1:1) on 2 nodes of 2 cores: 2 clients on 1 node, 4 * 10 / 2 = 20 s, same copy: 22 s
    dn = predict(COPY_APP, SMALL, w, Approach("dn", dedicated_nodes=1), only_copy)
    assert dn.time_s == approx(22)
    # 1 client (Platform(2, 1): DN with 1 simulation node of 1 core): 2e9 / 2e9 = 1 s per
    # output; compute 4 * 10 = 40 s: 42 s
    one = predict(COPY_APP, Platform(2, 1), w, Approach("dn", dedicated_nodes=1), only_copy)
    assert one.time_s == approx(42)
    # TP's measured write time holds its copy: no copy term
    tp = predict(COPY_APP, SMALL, w, Approach("tp"), only_copy)
    assert tp.time_s == approx(4 * 10 / 4 + 2 * 2e9 / 1e9)   # 10 + 2 outputs of 2 s on 4 writers
    off = ModelOptions(blocking=False, fixed_overhead=False, client_copy=False)
    assert predict(COPY_APP, SMALL, w, Approach("dc", dedicated_cores=1), off).time_s == 20


def test_client_copy_lengthens_the_output_interval_before_blocking():
    # DC(1) as in test_blocking_...: 2 s per iteration, outputs of 6e9 B (6 s on 2 writers at
    # 1e9 B/s) every iteration. Copy: 6e9 / 2 clients / 1e9 B/s = 3 s per output. Interval
    # 2 + 3 = 5 s: 9 outputs wait 1 s, the last drains 6 s: blocked 15 s; T = 20 + 10 * 3 + 15
    w = Workload(10, 1, 6e9)
    dc = predict(COPY_APP, SMALL, w, Approach("dc", dedicated_cores=1),
                 ModelOptions(fixed_overhead=False))
    assert dc.blocked_s == approx(15) and dc.time_s == approx(65)


def test_client_copy_without_a_copy_bandwidth_is_noted():
    dc = predict(SMALL_APP, SMALL, Workload(10, 5, 2e9), Approach("dc", dedicated_cores=1),
                 ModelOptions(blocking=False))
    assert dc.time_s == approx(20)
    assert "no copy bandwidth measured: the clients' copy taken as 0" in dc.notes


def test_fixed_overhead():
    w = Workload(10, 5, 2e9)
    only = ModelOptions(blocking=False, client_copy=False)
    # + 0.5 s once: TP 10 + 4 + 0.5 = 14.5 s; DC 20 + 0.5 = 20.5 s
    tp = predict(COPY_APP, SMALL, w, Approach("tp"), only)
    assert tp.time_s == approx(14.5)
    # TP energy: compute and overhead at P_max (2 nodes), I/O at 175 W:
    # (10.5 * 250 + 4 * 175) * 2 = 6650 J
    assert tp.energy_j == approx(6650)
    dc = predict(COPY_APP, SMALL, w, Approach("dc", dedicated_cores=1), only)
    assert dc.time_s == approx(20.5) and dc.energy_j == approx(20.5 * 250 * 2)
    # Every switch on (default extended): DC 20 + 2 copies of 1 s + the last output's drain
    # (2e9 B at 1e9 B/s = 2 s, no iteration after it) + 0.5 = 24.5 s
    assert predict(COPY_APP, SMALL, w, Approach("dc", dedicated_cores=1)).time_s == approx(24.5)


def test_paper_preset_ignores_copy_and_overhead():
    w = Workload(10, 5, 2e9)
    assert PAPER.client_copy is False and PAPER.fixed_overhead is False
    assert PAPER.describe() == "paper"
    # DC(1) on 2 nodes of 2 cores, 1 core each computing: 4 * 10 / 2 = 20 s, nothing else
    assert predict(COPY_APP, SMALL, w, Approach("dc", dedicated_cores=1), PAPER).time_s == 20
    assert ModelOptions().describe() == ("extended(tp_io, blocking, client_copy, fixed_overhead, "
                                         "approach_terms)")
