"""damaris_get_type for every element type a layout can have, the unsigned ones included
(uint8 to uint64 and their "unsigned char|short|int|long" spellings): the exact DAMARIS_TYPE_STR
value each gives, through the Damaris drop-in, on two ranks (tests/damaris/types.c)."""
import os
import pathlib
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from mpirun import BUILD, child_env, mpiexec  # noqa: E402

BIN = pathlib.Path(os.environ.get("ECLUSE_DAMARIS_BIN", BUILD / "tests" / "damaris")).resolve()

# (XML type, DAMARIS_TYPE_STR name, its value in Damaris.h's enumeration)
TYPES = [
    ("char", "DAMARIS_TYPE_CHAR", 1),
    ("short", "DAMARIS_TYPE_SHORT", 3),
    ("int", "DAMARIS_TYPE_INT", 5),
    ("long", "DAMARIS_TYPE_LONG", 7),
    ("float", "DAMARIS_TYPE_FLOAT", 9),
    ("double", "DAMARIS_TYPE_DOUBLE", 10),
    ("uint8", "DAMARIS_TYPE_UCHAR", 2),
    ("unsigned char", "DAMARIS_TYPE_UCHAR", 2),
    ("uint16", "DAMARIS_TYPE_USHORT", 4),
    ("unsigned short", "DAMARIS_TYPE_USHORT", 4),
    ("uint32", "DAMARIS_TYPE_UINT", 6),
    ("unsigned int", "DAMARIS_TYPE_UINT", 6),
    ("uint64", "DAMARIS_TYPE_ULONG", 8),
    ("unsigned long", "DAMARIS_TYPE_ULONG", 8),
]


def variable(xml_type):
    return "v_" + xml_type.replace(" ", "_")


XML = """<?xml version="1.0"?>
<simulation name="types" language="c" xmlns="http://damaris.gforge.inria.fr/damaris/model">
  <architecture>
    <domains count="1"/>
    <dedicated cores="0" nodes="0"/>
    <buffer name="buffer" size="1048576"/>
    <queue name="queue" size="100"/>
  </architecture>
  <data>
{declarations}
  </data>
</simulation>
""".replace("{declarations}", "\n".join(
    f'    <layout name="l{i}" type="{t}" dimensions="4"/>'
    f'<variable name="{variable(t)}" layout="l{i}"/>' for i, (t, _, _) in enumerate(TYPES)))


def test_damaris_get_type_gives_each_element_type_its_damaris_value(tmp_path):
    program = BIN / "damaris_types"
    if not program.exists():
        pytest.skip(f"{program} is not built (built in the tree only)")
    (tmp_path / "types.xml").write_text(XML)
    names = [variable(t) for t, _, _ in TYPES] + ["no_such_variable"]
    result = subprocess.run([mpiexec(), "-n", "2", str(program), "types.xml", *names],
                            cwd=tmp_path, env=dict(child_env(), ECLUSE_TIMEOUT="30"),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = [line for line in result.stdout.splitlines() if "|" in line]
    assert lines == [f"{variable(t)}|ok|{value}|{name}" for t, name, value in TYPES] + [
        "no_such_variable|DAMARIS_UNDEFINED_VARIABLE: undefined variable|0|"
        "DAMARIS_TYPE_UNDEFINED"], result.stdout + result.stderr
