"""Fits of the profile: synthetic timings from known curves give their parameters back."""
import math
import pathlib
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
from ecluse import profile as prof  # noqa: E402
from ecluse.fit import fit_profile, fit_scalability, measured_scalability  # noqa: E402
from ecluse.model import Scalability  # noqa: E402


def curve(serial, parallel, log, ks):
    return [serial + parallel / k + log * math.log2(k) for k in ks]


def test_full_curve_recovered_from_noise_free_points():
    ks = [1, 2, 3, 4, 6, 8]
    s = fit_scalability(ks, curve(0.002, 0.05, 0.001, ks))
    assert (s.serial, s.parallel, s.log) == pytest.approx((0.002, 0.05, 0.001), rel=1e-6)


def test_amdahl_recovered_and_preferred_on_a_tie():
    ks = [1, 2, 4, 8]
    s = fit_scalability(ks, curve(0.01, 0.09, 0.0, ks))
    assert (s.serial, s.parallel, s.log) == pytest.approx((0.01, 0.09, 0.0), abs=1e-9)
    two = fit_scalability([1, 2], [0.1, 0.06])  # two points: exactly Amdahl, 0.02 + 0.08 / k
    assert (two.serial, two.parallel, two.log) == pytest.approx((0.02, 0.08, 0.0), abs=1e-12)


def test_noisy_data_within_a_few_percent():
    rng = np.random.default_rng(7)
    ks = [1, 2, 3, 4, 5, 6, 7, 8]
    true = Scalability(0.004, 0.08, 0.002)
    times = [t * (1 + rng.normal(0, 0.01)) for t in curve(0.004, 0.08, 0.002, ks)]
    s = fit_scalability(ks, times)
    for k in ks:
        assert s(k) == pytest.approx(true(k), rel=0.03)


def test_times_growing_with_k_give_a_non_negative_fit():
    s = fit_scalability([1, 2, 4], [1.0, 1.5, 2.5])   # oversubscribed: slower with more ranks
    assert min(s.serial, s.parallel, s.log) >= 0
    assert s(4) < 0.5


def test_measured_scalability_is_speedup_over_k():
    # t(1) = 10, t(2) = 6: speedup 1.667, s(2) = 0.8333
    assert measured_scalability([1, 2], [10.0, 6.0]) == {1: 1.0, 2: pytest.approx(10 / 12)}


def test_fit_profile_gives_t_base_and_both_curves():
    cores = list(zip([1, 2, 4], curve(0.0, 0.2, 0.0, [1, 2, 4])))          # perfect
    nodes = list(zip([1, 2, 4], curve(0.01, 0.09, 0.0, [1, 2, 4])))        # Amdahl
    f = fit_profile(cores, nodes)
    assert f["t_base_s"] == pytest.approx(0.2)
    assert f["s_cores"](4) == pytest.approx(1.0)
    assert f["s_nodes"](2) == pytest.approx(0.1 / (2 * 0.055))


def test_profile_document_round_trip(tmp_path):
    settings = prof.ProfileSettings(cores=(1, 2), nodes=(1, 2), ranks_per_node=2, cpus=2)
    runs = [prof.RunResult("cores", 1, 1, 1.0, 0.02, {}), prof.RunResult("cores", 2, 1, 1.0, 0.01, {}),
            prof.RunResult("nodes", 2, 1, 1.0, 0.01, {}), prof.RunResult("nodes", 2, 2, 1.0, 0.008, {})]
    bw = [{"writers": 1, "bytes_per_output": 1e6, "write_time_s": 0.01, "bytes_per_s": 1e8}]
    doc = prof.build_profile(settings, runs, bw, prof.Power())
    assert doc["schema"] == "ecluse-profile/1"
    assert doc["oversubscribed"] is True and doc["max_ranks"] == 4 and doc["cpus"] == 2
    path = tmp_path / "p.json"
    import json
    path.write_text(json.dumps(doc))
    app = prof.app_model(prof.load_profile(str(path)))
    assert app.t_base_s == pytest.approx(0.02)
    assert app.s_nodes(2) == pytest.approx(0.01 / (2 * 0.008))
    assert app.bandwidth.at(1) == 1e8
    assert prof.profile_power(doc).id == "default-uncalibrated"


def test_local_block_keeps_the_global_grid():
    assert prof.dims_create(4) == (2, 2) and prof.dims_create(6) == (3, 2)
    assert prof.dims_create(7) == (7, 1)
    assert prof.local_for((128, 128, 40), 3) == (43, 128, 40)   # ceil(128 / 3) = 43
    # a rounded-up grid is scaled back: 129x128x40 measured, 128x128x40 asked
    settings = prof.ProfileSettings(global_grid=(128, 128, 40), iterations=10)
    t = prof.time_per_iteration({"iterations": 10, "wall_time_s": 1.29, "grid": "129x128x40"},
                                99.0, settings)
    assert t == pytest.approx(0.129 * 128 / 129)
