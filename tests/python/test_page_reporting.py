"""ecluse.page_reporting (bench/page_reporting.py's command line): the VM's free page reporting
paused for a benchmark and restored, against a fake parameter file and /proc/buddyinfo (this
machine's real one is left alone)."""
import os
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
from ecluse import page_reporting  # noqa: E402

BUDDYINFO = """Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      2
Node 0, zone    DMA32    130    114     75     56     43     30     19     13      9      8    646
"""


@pytest.fixture
def fake(tmp_path, monkeypatch):
    monkeypatch.delenv("ECLUSE_BENCH_PAGE_REPORTING", raising=False)
    parameter, buddyinfo = tmp_path / "page_reporting_order", tmp_path / "buddyinfo"
    parameter.write_text("9\n")
    buddyinfo.write_text(BUDDYINFO)
    # Every default path points at the fakes: a test never writes the machine's parameter.
    monkeypatch.setattr(page_reporting, "PARAMETER", str(parameter))
    monkeypatch.setattr(page_reporting, "BUDDYINFO", str(buddyinfo))
    return parameter, buddyinfo


def test_the_disabled_order_is_one_above_the_largest_block_order(fake):
    assert page_reporting.disabled_order(fake[1]) == 11


def test_paused_then_restored(fake):
    parameter, buddyinfo = fake
    with page_reporting.paused(0, parameter, buddyinfo) as what:
        assert parameter.read_text() == "11"
        assert what == ("free page reporting paused for the benchmark (page_reporting_order 9 -> "
                        "11; 0 GiB touched once in 0.0 s), restored at the end")
        # Nested (the demo around the harness): nothing more is done, and nothing restored.
        with page_reporting.paused(0, parameter, buddyinfo) as inner:
            assert inner == "free page reporting paused already (page_reporting_order 11)"
        assert parameter.read_text() == "11"
    assert parameter.read_text() == "9"


def test_restored_when_the_benchmark_fails(fake):
    parameter, buddyinfo = fake
    with pytest.raises(RuntimeError):
        with page_reporting.paused(0, parameter, buddyinfo):
            raise RuntimeError("a run failed")
    assert parameter.read_text() == "9"


def test_nothing_is_changed_when_kept_absent_or_not_writable(fake, monkeypatch, tmp_path):
    parameter, buddyinfo = fake
    monkeypatch.setenv("ECLUSE_BENCH_PAGE_REPORTING", "keep")
    with page_reporting.paused(0, parameter, buddyinfo) as what:
        assert what == ("free page reporting kept (ECLUSE_BENCH_PAGE_REPORTING=keep): nothing "
                        "changed")
        assert parameter.read_text() == "9\n"
    monkeypatch.delenv("ECLUSE_BENCH_PAGE_REPORTING")
    with page_reporting.paused(0, tmp_path / "none", buddyinfo) as what:
        assert what == "free page reporting absent: nothing changed"
    if os.geteuid() != 0:  # root writes through any mode
        parameter.chmod(0o444)
        with page_reporting.paused(0, parameter, buddyinfo) as what:
            assert what == "free page reporting not writable: nothing changed"


def test_warm_touches_the_memory_asked(monkeypatch):
    sizes = []
    real = bytearray

    class Spy(real):
        def __mul__(self, n):
            sizes.append(n)
            return real(b"\x01") * 16

    monkeypatch.setattr(page_reporting, "bytearray", Spy, raising=False)
    assert page_reporting.warm(0.5) >= 0
    assert sizes == [1 << 29]


def test_command_line_prints_the_order_to_restore_then_what_it_did(fake, monkeypatch, capsys):
    parameter, _ = fake
    monkeypatch.setattr(page_reporting, "warm", lambda gib: 0.0)
    assert page_reporting.main(["pause"]) == 0
    order, what = capsys.readouterr().out.splitlines()
    assert order == "9" and what.startswith("free page reporting paused for the benchmark")
    assert parameter.read_text() == "11"
    assert page_reporting.main(["restore", order]) == 0
    assert parameter.read_text() == "9"
    assert page_reporting.main(["restore", "-"]) == 0
    assert parameter.read_text() == "9"
    assert page_reporting.main(["bogus"]) == 2


def test_the_benchmarks_command_line_is_the_packages():
    """bench/page_reporting.py, run by the shell benchmarks with the system python3, is this
    module's command line."""
    import subprocess
    script = pathlib.Path(__file__).resolve().parents[2] / "bench" / "page_reporting.py"
    result = subprocess.run([sys.executable, str(script), "bogus"], capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr == ("usage: page_reporting.py pause [WARM_GIB] | restore ORDER|- | "
                             "status\n")
