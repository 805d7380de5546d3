#!/usr/bin/env python3
"""Fails when a file of src/ includes a folder that is not below its own in src/LAYERS.

Usage: check_layering.py [SRC_DIR]   (default: the src/ next to tests/)
       check_layering.py --self-test (a made-up tree with one upward include must fail)
"""
import re
import sys
import tempfile
from pathlib import Path

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)
SOURCES = {".hpp", ".cpp", ".h", ".c"}


def read_layers(src):
    """Folder -> level (0 at the bottom); folders on one line share a level."""
    levels = {}
    lines = (src / "LAYERS").read_text().splitlines()
    body = [line.split() for line in lines if line.strip() and not line.startswith("#")]
    for level, folders in enumerate(body):
        for folder in folders:
            if folder in levels:
                raise SystemExit(f"LAYERS: folder {folder} declared twice")
            levels[folder] = level
    return levels


def problems(src):
    levels = read_layers(src)
    found = []
    for folder in sorted(p.name for p in src.iterdir() if p.is_dir()):
        if folder not in levels:
            found.append(f"src/{folder}/ is not declared in src/LAYERS")
    for path in sorted(src.rglob("*")):
        if path.suffix not in SOURCES:
            continue
        relative = path.relative_to(src)
        if len(relative.parts) < 2:
            found.append(f"src/{relative} is outside every folder of src/LAYERS")
            continue
        own = relative.parts[0]
        for target in INCLUDE.findall(path.read_text()):
            into = target.split("/")[0] if "/" in target else own
            if into == "ecluse" or into == own or into not in levels or own not in levels:
                continue
            if levels[into] >= levels[own]:
                way = "a peer" if levels[into] == levels[own] else "a folder above"
                found.append(f'src/{relative}: #include "{target}" reaches {way} ({into}/ '
                             f"from {own}/, see src/LAYERS)")
    return found


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp)
        (src / "LAYERS").write_text("# test\nlow\nmid other\nhigh\n")
        for name, text in {
            "low/A.hpp": '#include "ecluse/Error.hpp"\n',
            "mid/B.hpp": '#include "low/A.hpp"\n#include "mid/C.hpp"\n',
            "mid/C.hpp": "",
            "other/D.cpp": '#include "low/A.hpp"\n',
            "high/E.cpp": '#include "mid/B.hpp"\n#include "low/A.hpp"\n',
        }.items():
            (src / name).parent.mkdir(exist_ok=True)
            (src / name).write_text(text)
        assert problems(src) == [], problems(src)
        (src / "low/A.hpp").write_text('#include "high/E.cpp"\n')
        (src / "other/D.cpp").write_text('#include "mid/B.hpp"\n')
        (src / "stray").mkdir()
        found = problems(src)
        assert len(found) == 3, found
        assert "stray/ is not declared" in found[0], found
        assert "low/A.hpp" in found[1] and "a folder above" in found[1], found
        assert "other/D.cpp" in found[2] and "a peer" in found[2], found
    print("self-test passed")


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    src = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "src"
    found = problems(src)
    for line in found:
        print(line)
    if found:
        raise SystemExit(f"{len(found)} include(s) against the layering of src/LAYERS")
    print(f"layering of {src} holds: {len(read_layers(src))} folders")


if __name__ == "__main__":
    main()
