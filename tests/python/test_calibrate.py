"""The calibration run, on fake counter trees: keyed by name, wraps, pm_counters, no counter."""
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
from ecluse import calibrate, power  # noqa: E402


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def rapl(root, values):
    """Package 0 at intel-rapl:0 (with dram), psys at intel-rapl:1 (never counted)."""
    base = root / "sys/class/powercap"
    write(base / "intel-rapl:0/name", "package-0\n")
    write(base / "intel-rapl:0/energy_uj", f"{values[0]}\n")
    write(base / "intel-rapl:0/max_energy_range_uj", "1000000000\n")
    write(base / "intel-rapl:0:0/name", "dram\n")
    write(base / "intel-rapl:0:0/energy_uj", f"{values[1]}\n")
    write(base / "intel-rapl:1/name", "psys\n")
    write(base / "intel-rapl:1/energy_uj", f"{values[2]}\n")


def test_rapl_packages_and_dram_with_a_wrap(tmp_path):
    rapl(tmp_path, [999_000_000, 5_000_000, 7])
    counter = calibrate.Counter(str(tmp_path))
    assert (counter.source, counter.quality) == ("rapl", "measured-partial")
    # package wraps: 999 J -> 1 J is 2 J (range 1000 J); dram +3 J; psys ignored.
    rapl(tmp_path, [1_000_000, 8_000_000, 9_000_000_000])
    assert counter.read() == pytest.approx(5.0)


def test_power_is_joules_over_seconds(tmp_path):
    write(tmp_path / "sys/cray/pm_counters/energy", "1000 J 1599999999999999 us\n")
    counter = calibrate.Counter(str(tmp_path))
    clock = iter([10.0, 12.0])

    def activity(seconds):  # the node draws 300 J during the 2 s
        write(tmp_path / "sys/cray/pm_counters/energy", "1300 J 1600000000000000 us\n")

    assert calibrate.measure_power(counter, 2, activity, clock=lambda: next(clock)) == 150.0


def test_the_calibration_file_is_read_back_by_the_model(tmp_path):
    write(tmp_path / "sys/cray/pm_counters/energy", "1 J\n")
    counter = calibrate.Counter(str(tmp_path))
    text = calibrate.calibration_text(95.04, 280.46, counter, "nid001", today="2026-11-22")
    assert text.splitlines()[1:] == ["[host nid001]", "id = calibrated-nid001-2026-11-22",
                                     "idle_watts = 95.0", "max_watts = 280.5"]
    path = tmp_path / "cal.ini"
    path.write_text(text)
    loaded = power.load_calibration(str(path), host="nid001", cpu="any")
    assert (loaded.idle_watts, loaded.max_watts, loaded.id) == (
        95.0, 280.5, "calibrated-nid001-2026-11-22")


def test_no_counter_says_what_to_do(tmp_path, capsys):
    assert calibrate.main(["--root", str(tmp_path), "--seconds", "0"]) == 2
    assert ("no energy counter: neither /sys/cray/pm_counters nor RAPL "
            "(/sys/class/powercap/intel-rapl:*) is readable here") in capsys.readouterr().err


def test_calibrate_is_a_subcommand_of_ecluse(tmp_path, capsys):
    from ecluse import cli
    assert cli.main(["calibrate", "--root", str(tmp_path), "--seconds", "1"]) == 2
    assert capsys.readouterr().err.startswith("ecluse calibrate: no energy counter: neither "
                                              "/sys/cray/pm_counters nor RAPL")
