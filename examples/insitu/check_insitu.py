"""Checks the demo's in-situ run against the plain one: every temperature value within the zfp
bound, the XDMF files and the PNGs there, and the bytes each run left on disk.

Usage: check_insitu.py INSITU_DIR PLAIN_DIR ITERATIONS CLIENTS BOUND
"""
import pathlib
import sys

import h5py
import hdf5plugin  # noqa: F401  (registers the zfp filter for h5py)
import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from read_output import expected_field, slab_of  # noqa: E402


def worst_error(out, iterations, clients):
    worst, seen = 0.0, 0
    for it in range(iterations):
        for path in sorted(out.glob(f"heat_It{it}_Pr*.h5")):
            with h5py.File(path, "r") as f:
                for name in f["temperature"]:
                    x0, nx = slab_of(int(name[1:]), clients)
                    got = f[f"temperature/{name}"][...]
                    worst = max(worst, float(np.abs(got - expected_field(it)[x0:x0 + nx]).max()))
                    seen += 1
    assert seen == iterations * clients, f"{seen} blocks, expected {iterations * clients}"
    return worst


def size_of(out):
    return sum(p.stat().st_size for p in out.glob("*.h5"))


def main():
    insitu, plain = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    iterations, clients, bound = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
    out = insitu / "out" / "per-process"
    worst = worst_error(out, iterations, clients)
    assert worst <= bound, f"zfp error {worst} above the bound {bound}"
    xmf = sorted(p.name for p in out.glob("*.xmf"))
    assert "heat.xmf" in xmf and len(xmf) == iterations + 1, xmf
    pngs = sorted(insitu.glob("temperature-*.png"))
    assert len(pngs) == (iterations + 1) // 2, [p.name for p in pngs]
    compressed, raw = size_of(out), size_of(plain / "out" / "per-process")
    print(f"in situ on the dedicated core: {len(pngs)} PNG slices ({pngs[-1].name} ...), "
          f"{len(xmf)} XDMF files (open {out / 'heat.xmf'} in ParaView), temperature within "
          f"{worst:.2g} of the simulation's values (bound {bound:g}); per-process files "
          f"{compressed / 1e3:.0f} kB with zfp vs {raw / 1e3:.0f} kB plain "
          f"({raw / compressed:.1f}x smaller)")


if __name__ == "__main__":
    main()
