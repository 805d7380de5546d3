"""P_idle / P_max: explicit values, the calibration file of docs/energy.md, the default."""
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
from ecluse.power import CalibrationError, Power, load_calibration, resolve_power  # noqa: E402

CAL = """# measured on 2024-03-01
[host nid00*]
id = ex-nodes-2024
idle_watts = 110
max_watts = 390.5

[cpu AMD EPYC 7763*]
idle_watts = 95
max_watts = 280
"""


def test_host_section_wins_first(tmp_path):
    f = tmp_path / "cal.ini"
    f.write_text(CAL)
    p = load_calibration(str(f), host="nid00042", cpu="AMD EPYC 7763 64-Core")
    assert p == Power(110.0, 390.5, "ex-nodes-2024", "calibration")


def test_cpu_section_with_default_id(tmp_path):
    f = tmp_path / "cal.ini"
    f.write_text(CAL)
    p = load_calibration(str(f), host="vm", cpu="AMD EPYC 7763 64-Core")
    assert (p.idle_watts, p.max_watts, p.id) == (95.0, 280.0, f"{f}:7")


def test_no_match_is_the_default(tmp_path):
    f = tmp_path / "cal.ini"
    f.write_text(CAL)
    assert load_calibration(str(f), host="vm", cpu="Intel") == Power()
    assert Power().label() == "default-uncalibrated (100 W idle, 250 W max)"


def test_errors_name_file_and_line(tmp_path):
    f = tmp_path / "cal.ini"
    f.write_text("[host *]\nidle = 3\n")
    with pytest.raises(CalibrationError, match=f"{f}:2: unknown key 'idle'; known keys: id, "
                                               "idle_watts, max_watts"):
        load_calibration(str(f), host="vm", cpu="x")


def test_precedence():
    assert resolve_power(90, 200, "ignored.ini", "lab").id == "lab"
    assert resolve_power(None, None, None) == Power()
    with pytest.raises(ValueError, match="both"):
        resolve_power(90, None, None)
