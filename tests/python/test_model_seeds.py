"""The seeds' published figures against the model (issue 15, item 3).

Seed 002 (Dorier et al., FGCS 2016) Table 2: CM1 on Nancy, 32 nodes of 4 cores, 2520 iterations,
373 MB every 10 iterations, total energy TP 3324, DC(ONE) 1777, DC(TWO) 2211, DN(15:1) 1736,
DN(7:1) 1340 kJ; per node min/max DN(15:1) 35/56 kJ, DN(7:1) 28/44 kJ. Seed 000 (Yildiz et al.,
DIDC 2014) §4.2: one more dedicated core lowers a node's power by 10% with 4 cores per node, by
1% with 24. The paper's own error is 5.7% at worst (seed 002 Table 3): the tolerance here.

The paper does not publish Nancy's T_base, s_cores, s_nodes, P_idle, P_max or write time, so:
- P_idle / P_max = 28 / 44: Table 2's DN(7:1) coolest node (a dedicated node, which never blocks
  at this interval, §2.2.2, so it idles while the simulation nodes compute) over its hottest.
- scalability perfect (s = 1): only ratios between runs of one approach family are checked.
- the dedicated node's write time per output is not published: the test shows that the model
  reaches Table 2's DN ratio with a write time inside the bounds the paper states (DN(7:1) does
  not block at every 10; DN(15:1) does at 10, not at 20 or 30), and checks the per-node figures.
Not checked (need Nancy's unpublished s_cores): DC(TWO)/DC(ONE) and DC/DN energies; TP (the
paper does not model it).
"""
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
from ecluse.model import (AppModel, Approach, Bandwidth, ModelOptions, Platform,  # noqa: E402
                          Scalability, Workload, predict)

PAPER_ERROR = 0.057                      # seed 002 Table 3: worst error, DN(15:1) on Nancy
P_MAX = 100.0
P_IDLE = P_MAX * 28 / 44                 # Table 2, DN(7:1): min / max node energy
NANCY = Platform(32, 4, P_IDLE, P_MAX, "seed-002-nancy")
RENNES = Platform(16, 24, P_IDLE, P_MAX, "seed-002-rennes")
T_ITER = 1.0                             # s per iteration on all 128 cores (unit: ratios only)
BYTES = 373e6


def app(io_per_node_s: float) -> AppModel:
    """Perfect scaling; every writer writes at the same speed (the aggregate grows with the
    writers): DN(7:1)'s 4 dedicated nodes (16 writers) write one output in io_per_node_s,
    DN(15:1)'s 2 in twice that."""
    per_writer = BYTES / (io_per_node_s * 16)
    return AppModel(T_ITER * 128, Scalability(), Scalability(),
                    Bandwidth((4, 8, 16, 64), tuple(per_writer * w for w in (4, 8, 16, 64))))


def run(platform, approach, io_per_node_s, every=10, options=None):
    # The paper's clients spin in MPI while blocked (busy); its dedicated resources store at a
    # full core's power (write CPU share 1): only their idle time is idle.
    options = options or ModelOptions.extended(client_copy=False, fixed_overhead=False,
                                               blocked_clients_sleep=False, tp_io_busy=1.0)
    return predict(app(io_per_node_s), platform, Workload(2520, every, BYTES), approach, options)


DC1, DC2 = Approach("dc", dedicated_cores=1), Approach("dc", dedicated_cores=2)
DN15, DN7 = Approach("dn", dedicated_nodes=2), Approach("dn", dedicated_nodes=4)


@pytest.mark.parametrize("platform, measured", [(NANCY, 0.90), (RENNES, 0.99)])
def test_second_dedicated_core_lowers_node_power_as_measured(platform, measured):
    # Seed 000 §4.2. Writes take 1% of the interval: the dedicated cores mostly sleep.
    ratio = run(platform, DC2, 0.1).power_w / run(platform, DC1, 0.1).power_w
    assert ratio == pytest.approx(measured, rel=PAPER_ERROR)
    paper = ModelOptions.paper()   # eq. 4, busy-polling dedicated cores: no difference at all
    assert run(platform, DC2, 0.1, options=paper).power_w == run(platform, DC1, 0.1,
                                                                 options=paper).power_w


def dn_ratio(io_s: float, every: int = 10) -> float:
    return run(NANCY, DN15, io_s, every).energy_j / run(NANCY, DN7, io_s, every).energy_j


def solve_io(target: float) -> float:
    """DN(7:1)'s write time per output giving the energy ratio `target`."""
    lo, hi = 0.01, 20.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if dn_ratio(mid) < target else (lo, mid)
    return (lo + hi) / 2


def test_dn_energy_ratio_of_table_2_within_the_papers_bounds():
    measured = 1736 / 1340                                   # 1.296
    io = solve_io(measured)
    assert dn_ratio(io) == pytest.approx(measured, rel=1e-6)
    def interval(every, approach):
        return run(NANCY, approach, io, every).compute_s / 2520 * every
    # What the paper says about the same runs (§2.2.2): DN(7:1) keeps up at every 10, DN(15:1)
    # blocks at 10 but keeps up at 20 and 30. io is for 4 dedicated nodes; 2 need twice as long.
    assert io < interval(10, DN7)
    assert 2 * io > interval(10, DN15) and 2 * io < interval(20, DN15)
    assert run(NANCY, DN7, io).blocked_s == pytest.approx(io)      # the last output's drain only
    assert run(NANCY, DN15, io).blocked_s > 100 * io
    for every in (20, 30):
        assert run(NANCY, DN15, io, every).blocked_s == pytest.approx(2 * io)   # last drain only
    # Per node: the simulation nodes of DN(15:1) vs those of DN(7:1), max 56 vs 44 kJ.
    node_ratio = run(NANCY, DN15, io).time_s / run(NANCY, DN7, io).time_s   # both at P_max
    assert node_ratio == pytest.approx(56 / 44, rel=PAPER_ERROR)
    # Without the blocking term no write time reaches Table 2: DN(15:1) only computes faster.
    plain = ModelOptions.extended(blocking=False, client_copy=False, fixed_overhead=False,
                                  blocked_clients_sleep=False, tp_io_busy=1.0)
    ratio = (run(NANCY, DN15, io, options=plain).energy_j
             / run(NANCY, DN7, io, options=plain).energy_j)
    assert ratio < 1.0


def test_papers_picks():
    # Rennes (§4.1, T_base 18.1 s, every 30): one dedicated core per node is the least energy.
    rennes = AppModel(18.1, Scalability(), Scalability(), Bandwidth((24,), (2e9,)))
    work = Workload(2520, 30, BYTES)
    options = ModelOptions.extended(client_copy=False, fixed_overhead=False,
                                    blocked_clients_sleep=False, tp_io_busy=1.0)
    energy = {a: predict(rennes, RENNES, work, a, options).energy_j for a in (DC1, DC2, DN15)}
    assert min(energy, key=energy.get) == DC1
    # Nancy (§4.2, Table 2): DN(7:1) least, DC(TWO) most. DN(15:1) and DC(ONE) are 2.3% apart in
    # Table 2, within the paper's error, and DC(ONE) depends on the unpublished s_cores(3).
    io = solve_io(1736 / 1340)
    nancy = {a: run(NANCY, a, io).energy_j for a in (DC1, DC2, DN15, DN7)}
    order = sorted(nancy, key=nancy.get)
    assert order[0] == DN7 and order[-1] == DC2
