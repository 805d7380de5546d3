"""Checks the CM1-like proxy's output against an independent NumPy run of the same stencil.

Usage: check_output.py OUT_DIR --iterations N --output-every K [--variables a,b,...]

OUT_DIR holds proxy_It<it>.h5 (the Collective HDF5 store), one per output iteration: iteration
`it` holds the fields after it + 1 time steps. The fields are recomputed on the global grid
(periodic in x and y, zero gradient in z), which does not depend on the process grid. Each
expression is evaluated in the same order as apps/proxy/Atmosphere.cpp (built without FMA
contraction) in IEEE double, so the comparison is exact: tolerance 0.
"""
import argparse
import pathlib
import sys

import h5py
import numpy as np

NAMES = ["temperature", "pressure", "u", "v", "w", "qv"]
DIFFUSION = 0.05
ADVECTION = 0.05


def bump(n):
    s = np.arange(n, dtype=np.float64) / np.float64(n)
    return s * (1.0 - s)


def initial_fields(shape):
    nx, ny, nz = shape
    bx = bump(nx)[:, None, None]
    by = bump(ny)[None, :, None]
    k = np.arange(nz, dtype=np.float64)[None, None, :]
    fields = [
        300.0 + 160.0 * bx * by + 0.5 * k,
        1000.0 - 1.2 * k + 40.0 * bx,
        4.0 * by,
        0.5 - 2.0 * bx,
        0.5 * bx * by,
        0.02 * bx + 0.001 * k,
    ]
    return [np.broadcast_to(f, shape).astype(np.float64) for f in fields]


def update(c, u, v, w):
    xp, xm = np.roll(c, -1, axis=0), np.roll(c, 1, axis=0)
    yp, ym = np.roll(c, -1, axis=1), np.roll(c, 1, axis=1)
    zp = np.concatenate([c[:, :, 1:], c[:, :, -1:]], axis=2)
    zm = np.concatenate([c[:, :, :1], c[:, :, :-1]], axis=2)
    lap = xp + xm + yp + ym + zp + zm - 6.0 * c
    adv = u * (xp - xm) + v * (yp - ym) + w * (zp - zm)
    return c + (DIFFUSION * lap - ADVECTION * adv)


def step(fields):
    u, v, w = fields[2], fields[3], fields[4]
    return [update(c, u, v, w) for c in fields]


def expected_files(out, iterations, every):
    return [out / f"proxy_It{it}.h5" for it in range(iterations) if (it + 1) % every == 0]


def check_file(path, fields, variables):
    with h5py.File(path, "r") as f:
        assert sorted(f.keys()) == sorted(variables), f"{path.name}: datasets {sorted(f.keys())}"
        for name in variables:
            data = f[name][...]
            assert data.dtype == np.float64, f"{path.name}/{name}: type {data.dtype}"
            mismatch = np.count_nonzero(data != fields[NAMES.index(name)])
            assert mismatch == 0, f"{path.name}/{name}: {mismatch} of {data.size} values differ"


def grid_shape(out, files, variables):
    if not files:
        raise AssertionError(f"no output expected in {out}: nothing to check")
    with h5py.File(files[0], "r") as f:
        return f[variables[0]].shape


def check(out, iterations, every, variables):
    """Checks every output file; returns (files checked, global grid shape)."""
    out = pathlib.Path(out)
    files = expected_files(out, iterations, every)
    found = sorted(out.glob("*.h5"))
    names = [p.name for p in found]
    assert found == sorted(files), f"files {names}, expected {[p.name for p in files]}"
    assert not list(out.glob("*.part")), "a partial file stayed behind"
    shape = grid_shape(out, files, variables)
    fields = initial_fields(shape)
    for it in range(iterations):
        fields = step(fields)
        if (it + 1) % every == 0:
            check_file(out / f"proxy_It{it}.h5", fields, variables)
    return len(files), shape


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--iterations", type=int, required=True)
    parser.add_argument("--output-every", type=int, required=True)
    parser.add_argument("--variables", default=",".join(NAMES))
    args = parser.parse_args(argv)
    variables = args.variables.split(",")
    count, shape = check(args.out, args.iterations, args.output_every, variables)
    print(f"proxy output checked: {count} files, {len(variables)} fields on a "
          f"{'x'.join(map(str, shape))} grid, every value equal to the NumPy recomputation")


if __name__ == "__main__":
    main(sys.argv[1:])
