"""Pieces of the demo: one problem for every approach, and reading the advisor's table."""
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench" / "harness"))
import demo  # noqa: E402
import runs  # noqa: E402

ADVICE = """platform: 2 nodes x 2 cores (virtual nodes on one host of 2 CPUs)
approach          time s   compute s     I/O s  blocked s   power W    energy J  mark
TP                 3.625       2.750     0.876      0.000     250.0     906.331
DC(1)              3.016       2.870     0.876      0.146     250.0     753.878  least-energy,fastest
DN(1:1)            3.016       2.870     0.876      0.146     250.0     753.878
least energy: DC(1) (753.878 J)
"""


def test_the_global_grid_is_kept_whatever_the_clients():
    assert runs.local_of("192x192x40", 4) == "96x96x40"
    assert runs.local_of("192x192x40", 3) == "64x192x40"
    assert runs.local_of("192x192x40", 2) == "96x192x40"
    with pytest.raises(ValueError, match="does not split over a 5x1 process grid"):
        runs.local_of("192x192x40", 5)


def test_ties_of_the_advisor_are_kept():
    assert demo.least_energy_rows(ADVICE) == ["DC(1)", "DN(1:1)"]


def test_demo_output_is_the_whole_problem_once_per_output():
    assert demo.bytes_per_output() == 192 * 192 * 40 * 8 * 6


def test_verdict_agrees_or_says_within_noise():
    measured = {"TP": (900.0, 0.02), "DC(1)": (750.0, 0.05), "DN": (760.0, 0.03)}
    assert demo.verdict(["DC(1)"], measured).endswith(": agrees")
    line = demo.verdict(["DN(1:1)"], measured)
    assert "differs, but DN measured only 1.3% more, within the run-to-run noise (5.0%" in line
    assert "DISAGREES (TP measured 20.0% more" in demo.verdict(["TP"], measured)


def test_demo_runs_at_most_two_busy_processes():
    # 2 ranks: TP 2 clients, DC 1 client + 1 dedicated core, DN on virtual nodes of 1 rank
    # (ECLUSE_RANKS_PER_NODE=1 overrides the configuration's <virtual-nodes ranks-per-node="2">).
    import harness
    assert harness.DEMO_MATRIX == {"proxy": ([harness.DEMO_CASE], [2])}
    assert [runs.clients_of(a, 2) for a in harness.DEMO_APPROACHES] == [2, 1, 1]
    assert [runs.why_not(runs.Spec("proxy", harness.DEMO_CASE, a, 2))
            for a in harness.DEMO_APPROACHES] == [None, None, None]
    env = runs.launch_environment(pathlib.Path("/x"), "ecluse", 1)
    assert env["ECLUSE_RANKS_PER_NODE"] == "1" and env["ECLUSE_REPORT"] == "/x/ecluse-report.json"


def test_the_advisors_two_platforms_are_merged():
    """Each approach comes from the table of the platform the demo runs it on: TP from one node
    of 2 cores (its 2 clients share the host), never the two-node table's TP row."""
    one_node = ADVICE.replace("DN(1:1)            3.016       2.870     0.876      0.146     250.0"
                              "     753.878\n", "").replace("906.331", "600.000")
    two_nodes = ADVICE.replace("DC(1)              3.016       2.870     0.876      0.146     "
                               "250.0     753.878  least-energy,fastest\n", "") \
        .replace("753.878\n", "700.000\n", 1)
    assert demo.table_rows(two_nodes)["TP"] == 906.331
    rows = demo.measured_rows([one_node, two_nodes])
    assert rows == {"TP": 600.0, "DC(1)": 753.878, "DN(1:1)": 700.0}
    assert demo.lowest(rows) == ["TP"]
    # The demo's runs: TP and DC(1) on one node of 2 cores, DN(1:1) on two nodes of 1 core.
    assert demo.PLATFORMS == ((("1", "2"), ("TP", "DC(1)")), (("2", "1"), ("DN(1:1)",)))
    assert sorted(demo.LABELS[a] for a in __import__("harness").DEMO_APPROACHES) == \
        sorted(name for _, names in demo.PLATFORMS for name in names)
