"""The advisor on constructed cases: DN(15:1) wins at a low output frequency and blocks at a
high one, where DN(7:1) takes over (seed 002 §2.2.2); TP loses when its I/O is long."""
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
from ecluse.advise import advise, architecture_xml, explain, predict_all  # noqa: E402
from ecluse.model import (MIB, AppModel, Approach, Bandwidth, ModelOptions, Platform,  # noqa: E402
                          Prediction, Scalability, Workload, buffer_bytes_for)

# 16 nodes of 4 cores (Nancy-like), T_base 60 s: per iteration TP 60/64 = 0.9375 s,
# DC(1) 60/48 = 1.25 s, DN(15:1) 60/60 = 1 s, DN(7:1) 60/56 = 1.0714 s.
# Bandwidth: 1e8 B/s for 4 writers (one dedicated node), 2e8 B/s from 8 writers on.
NANCY = Platform(16, 4)
APP = AppModel(60.0, Scalability(), Scalability(), Bandwidth((4, 8), (1e8, 2e8)))
PAPER_SET = [Approach("tp"), Approach("dc", dedicated_cores=1),
             Approach("dn", dedicated_nodes=2), Approach("dn", dedicated_nodes=1)]


def by_label(advice):
    return {p.label: p for p in advice.predictions}


def test_low_frequency_dn_15_1_wins():
    # Every 10 iterations, 3e8 B: DN(15:1) writes 3 s per output (< 10 s interval), only the
    # last one drains: T = 100 + 3 = 103 s, E = 103 * 245.3125 * 16 = 404275 J.
    # DN(7:1): (107.142857 + 1.5) * 3850 = 418275 J; TP: 16 * (93.75 * 250 + 15 * 175) =
    # 417000 J; DC(1): (125 + 1.5) * 4000 = 506000 J.
    a = advise(predict_all(APP, NANCY, Workload(100, 10, 3e8), ModelOptions(), PAPER_SET))
    p = by_label(a)
    assert a.least_energy.label == "DN(15:1)"
    assert p["DN(15:1)"].energy_j == pytest.approx(404275)
    assert p["DN(7:1)"].energy_j == pytest.approx(418275)
    assert p["TP"].energy_j == pytest.approx(417000)
    assert p["DC(1)"].energy_j == pytest.approx(506000)
    # The whole block: 3e8 B per output to 1 dedicated node, twice over with 1/32 for the
    # allocator's bookkeeping and 1 MiB to spare, in MiB rounded up: 591.08 -> 592.
    assert architecture_xml(a.least_energy, NANCY, Workload(100, 10, 3e8)) == (
        '<architecture>\n  <domains count="1"/>\n  <dedicated cores="0" nodes="1"/>\n'
        '  <buffer name="ecluse-buffer" size="592MiB"/>\n</architecture>')


def footprint(payload: int) -> int:
    """What a block takes in the node's buffer (src/shm/BufferAllocator.hpp, block_footprint):
    a 64-byte header and the payload rounded up to 64 bytes."""
    return 64 + (payload + 63) // 64 * 64


@pytest.mark.parametrize("blocks,payload", [(8, MIB), (1000, 4096), (3, 5 * MIB + 1), (1, 1)])
def test_the_recommended_buffer_holds_two_outputs_with_their_bookkeeping(blocks, payload):
    # VPIC-IO's 8 variables of 1 MiB; a thousand 4 KiB blocks; odd sizes; one byte.
    share = blocks * payload
    size = buffer_bytes_for(share)
    assert size % MIB == 0
    assert 2 * blocks * footprint(payload) <= size
    assert size <= 2 * share * (1 + 1 / 32) + 2 * MIB  # no more than that, in whole MiB
    # Two outputs' payload alone, the rule before: one block short at 8 x 1 MiB.
    if (blocks, payload) == (8, MIB):
        assert 2 * blocks * footprint(payload) > 2 * share


def test_high_frequency_dn_15_1_blocks_and_dn_7_1_wins():
    # Every iteration: DN(15:1) needs 3 s per output against a 1 s interval:
    # blocked 99 * 2 + 3 = 201 s. DN(7:1): 1.5 s against 1.0714 s: 99 * 0.428571 + 1.5 =
    # 43.928571 s, T = 151.071429 s, E = T * 3850 = 581625 J; DC(1): 99 * 0.25 + 1.5 = 26.25 s
    # blocked, E = 151.25 * 4000 = 605000 J; TP: 16 * (93.75 * 250 + 150 * 175) = 795000 J.
    a = advise(predict_all(APP, NANCY, Workload(100, 1, 3e8), ModelOptions(), PAPER_SET))
    p = by_label(a)
    assert p["DN(15:1)"].blocked_s == pytest.approx(201)
    assert a.least_energy.label == "DN(7:1)" and a.fastest.label == "DN(7:1)"
    assert p["DN(7:1)"].energy_j == pytest.approx(581625)
    assert p["DC(1)"].energy_j == pytest.approx(605000)
    assert p["TP"].energy_j == pytest.approx(795000)
    assert a.why.startswith("DN(7:1) uses 3.9% less energy than DC(1)")


def test_paper_model_cannot_see_blocking():
    # Without the blocking switch DN(15:1) is as good at every output frequency (the paper
    # leaves TP out: the default candidates do too when TP's I/O time is off).
    a = advise(predict_all(APP, NANCY, Workload(100, 1, 3e8), ModelOptions.paper()))
    assert "TP" not in by_label(a)
    assert a.least_energy.label == "DN(15:1)"


def test_many_cores_per_node_favour_a_dedicated_core():
    # Rennes-like: 24 cores per node, losing 1 costs 4%; DN(15:1) loses 1/16 of the nodes.
    rennes = Platform(16, 24)
    app = AppModel(18.1, Scalability(), Scalability(), Bandwidth((1,), (1e9,)))
    a = advise(predict_all(app, rennes, Workload(2520, 30, 373e6), ModelOptions()))
    assert a.least_energy.label == "DC(1)" and a.fastest.label == "DC(1)"
    assert "less energy than DN(15:1)" in a.why


def test_a_dedicated_core_blocked_by_the_io_is_not_said_to_hide_it():
    # As a short run of the example predicts it: DC(1) is blocked for almost all of the I/O
    # TP waits for, and wins on power (it said "hides the I/O that TP waits for").
    tp = Prediction("TP", Approach("tp"), 1.0, 0.98, 0.0157, 0.0, 225.0, 225.0)
    dc = Prediction("DC(1)", Approach("dc", dedicated_cores=1), 0.99, 0.98, 0.0157, 0.0155,
                    163.0, 163.0)
    assert explain(dc, [tp, dc]) == (
        "DC(1) uses 27.6% less energy than TP: DC(1) hides only 0.0002 s of the 0.0157 s of I/O "
        "that TP waits for (its dedicated resources keep it blocked 0.0155 s); the rest is power "
        "(163 W vs 225 W per node)")


def test_long_tp_io_explained():
    app = AppModel(1.0, Scalability(), Scalability(), Bandwidth((1,), (1e8,)))
    a = advise(predict_all(app, Platform(1, 8), Workload(100, 10, 1e8), ModelOptions(),
                           [Approach("tp"), Approach("dc", dedicated_cores=1)]))
    # TP: 100/8 = 12.5 s compute + 10 outputs of 1 s at 175 W: 3125 + 1750 = 4875 J.
    # DC(1): 100/7 = 14.2857 s, 1 s of I/O per 1.43 s interval, last drain 1 s:
    # 15.2857 s * 250 W = 3821.43 J, (4875 - 3821.43) / 4875 = 21.6% less.
    assert a.least_energy.label == "DC(1)" and a.fastest.label == "DC(1)"
    assert a.why == "DC(1) uses 21.6% less energy than TP: DC(1) hides the I/O that TP waits for (10 s)"
