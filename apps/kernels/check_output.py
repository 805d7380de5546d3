"""Checks the output of the VPIC-IO-like and VORPAL-IO-like kernels value by value.

Usage: check_output.py vpic OUT_DIR --particles N --ranks R --steps S
       check_output.py vorpal OUT_DIR --block BXxBYxBZ --steps S

OUT_DIR holds <name>_It<step>.h5 (the Collective HDF5 store), one per step. Every value is a
function of its global index and the step only, so it is recomputed here with the formulas of
vpic_io.cpp and vorpal_io.cpp: integer arithmetic, then one rounding to float (VPIC) or exact
small integers in double (VORPAL), so the comparison is exact: tolerance 0.
"""
import argparse
import pathlib
import sys

import h5py
import numpy as np

VPIC_FLOATS = ["x", "y", "z", "px", "py", "pz"]
VORPAL_COMPONENTS = ["ex", "ey", "ez"]
INT32_MAX = 2147483647


def vpic_expected(count, step):
    g = np.arange(count, dtype=np.int64)
    values = {}
    for v, name in enumerate(VPIC_FLOATS):
        cell = (g * (2 * v + 1) + 7 * step) % 10007
        values[name] = (cell.astype(np.float64) * 0.01).astype(np.float32)
    values["id1"] = (g % INT32_MAX).astype(np.int32)
    values["id2"] = ((2 * g + step) % INT32_MAX).astype(np.int32)
    return values


def vorpal_expected(shape, step):
    i, j, k = (np.arange(n, dtype=np.int64) for n in shape)
    cell = (i[:, None, None] * 31 + j[None, :, None] * 17 + k[None, None, :] * 7) % 99991
    return {name: step * 1e6 + c * 1e5 + cell.astype(np.float64)
            for c, name in enumerate(VORPAL_COMPONENTS)}


def compare(path, expected):
    with h5py.File(path, "r") as f:
        assert sorted(f.keys()) == sorted(expected), f"{path.name}: datasets {sorted(f.keys())}"
        for name, values in expected.items():
            data = f[name][...]
            assert data.dtype == values.dtype, f"{path.name}/{name}: type {data.dtype}"
            assert data.shape == values.shape, f"{path.name}/{name}: shape {data.shape}"
            mismatch = np.count_nonzero(data != values)
            assert mismatch == 0, f"{path.name}/{name}: {mismatch} of {data.size} values differ"


def check_files(out, name, steps, expected_of):
    out = pathlib.Path(out)
    files = [out / f"{name}_It{s}.h5" for s in range(steps)]
    found = sorted(out.glob("*.h5"))
    names = [p.name for p in found]
    assert found == sorted(files), f"files {names}, expected {[p.name for p in files]}"
    assert not list(out.glob("*.part")), "a partial file stayed behind"
    for s, path in enumerate(files):
        compare(path, expected_of(s))
    return len(files)


def check_vpic(out, particles, ranks, steps):
    """Checks every step's 8 arrays of particles * ranks values; returns the number of files."""
    return check_files(out, "vpic", steps, lambda s: vpic_expected(particles * ranks, s))


def vorpal_shape(out):
    with h5py.File(pathlib.Path(out) / "vorpal_It0.h5", "r") as f:
        return f[VORPAL_COMPONENTS[0]].shape


def check_vorpal(out, block, steps):
    """Checks every step's components on the global grid (a whole number of blocks)."""
    shape = vorpal_shape(out)
    whole = all(n % b == 0 for n, b in zip(shape, block))
    assert whole, f"grid {shape} is not made of {block} blocks"
    return check_files(out, "vorpal", steps, lambda s: vorpal_expected(shape, s)), shape


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    kinds = parser.add_subparsers(dest="kernel", required=True)
    vpic = kinds.add_parser("vpic")
    vpic.add_argument("out")
    vpic.add_argument("--particles", type=int, required=True)
    vpic.add_argument("--ranks", type=int, required=True)
    vpic.add_argument("--steps", type=int, required=True)
    vorpal = kinds.add_parser("vorpal")
    vorpal.add_argument("out")
    vorpal.add_argument("--block", required=True)
    vorpal.add_argument("--steps", type=int, required=True)
    args = parser.parse_args(argv)
    if args.kernel == "vpic":
        count = check_vpic(args.out, args.particles, args.ranks, args.steps)
        print(f"vpic output checked: {count} files, 8 arrays of {args.particles * args.ranks} "
              "particles, every value as computed")
    else:
        block = tuple(int(n) for n in args.block.split("x"))
        count, shape = check_vorpal(args.out, block, args.steps)
        print(f"vorpal output checked: {count} files, 3 components on a "
              f"{'x'.join(map(str, shape))} grid, every value as computed")


if __name__ == "__main__":
    main(sys.argv[1:])
