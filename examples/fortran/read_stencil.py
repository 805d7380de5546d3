"""Reads the Fortran stencil's output back with h5py and checks every value against NumPy.

Usage: read_stencil.py OUT_DIR CLIENTS [STEPS OUTPUT_EVERY]
The model (stencil.f90) is exact: a shift by one cell in x and y per step (upwind advection at
Courant number 1), vertical diffusion with kappa 1/4 on values of few bits, rain summed from qv;
so the same operations in NumPy give the same bits.
"""
import pathlib
import sys

import h5py
import numpy as np

NX, NY, NZ = 24, 12, 10
CLOUD_THRESHOLD = 18


def initial_state():
    """theta and qv indexed [x, y, z] by global 0-based indices, as stencil.f90 sets them."""
    i, j, k = np.meshgrid(np.arange(NX), np.arange(NY), np.arange(NZ), indexing="ij")
    theta = (290 + 2 * k + (3 * i + 5 * j) % 17).astype(np.float64)
    qv = ((7 * i + 11 * j + 13 * k) % 23).astype(np.float64)
    return theta, qv, np.zeros((NX, NY), dtype=np.float32)


def diffuse_column(theta):
    column = np.concatenate([theta[:, :, :1], theta, theta[:, :, -1:]], axis=2)
    return column[:, :, 1:-1] + 0.25 * (column[:, :, 2:] - 2 * column[:, :, 1:-1] + column[:, :, :-2])


def states(steps, every):
    """(step, theta, qv, cloud, rain) at every output step, all indexed [x, y(, z)]."""
    theta, qv, rain = initial_state()
    for step in range(steps + 1):
        if step > 0:
            theta = diffuse_column(np.roll(theta, (1, 1), axis=(0, 1)))
            qv = np.roll(qv, (1, 1), axis=(0, 1))
            rain = rain + qv[:, :, 0].astype(np.float32)
        if step % every == 0:
            yield step, theta, qv, (qv >= CLOUD_THRESHOLD).astype(np.int32), rain


def check_history(out, step, theta, qv, cloud):
    """The collective file of one output: global arrays, stored in C order [z, y, x]."""
    with h5py.File(out / "history" / f"stencil_It{step}.h5", "r") as f:
        for name, expected, dtype in (("theta", theta, np.float64), ("qv", qv, np.float64),
                                      ("cloud", cloud, np.int32)):
            data = f[name][...]
            assert data.dtype == dtype, f"{name}: {data.dtype}"
            np.testing.assert_array_equal(data, expected.transpose(2, 1, 0), err_msg=f"{name} at {step}")


def check_surface(out, step, variable, expected, clients):
    """Every client's block of a 2-D variable (rain, ground), from the per-writer files, covers
    the surface once."""
    seen = np.zeros((NY, NX), dtype=int)
    sources = []
    for path in (out / "surface").glob(f"stencil_It{step}_Pr*.h5"):
        with h5py.File(path, "r") as f:
            for name, block in f[variable].items():
                y0, x0 = (int(v) for v in block.attrs["global_offset"])
                ny, nx = block.shape
                assert block.dtype == expected.dtype, f"{variable}: {block.dtype}"
                np.testing.assert_array_equal(block[...], expected.T[y0:y0 + ny, x0:x0 + nx],
                                              err_msg=f"{variable} at {step}")
                seen[y0:y0 + ny, x0:x0 + nx] += 1
                sources.append(int(name[1:]))
    assert sorted(sources) == list(range(clients)), f"step {step}: blocks of {sorted(sources)}"
    assert (seen == 1).all(), f"step {step}: {variable} blocks overlap or leave holes"


def check(out, clients, steps=12, every=4):
    """Checks every output; returns the number of outputs."""
    out = pathlib.Path(out)
    outputs = 0
    for step, theta, qv, cloud, rain in states(steps, every):
        check_history(out, step, theta, qv, cloud)
        check_surface(out, step, "rain", rain, clients)
        check_surface(out, step, "ground", theta[:, :, 0], clients)
        outputs += 1
    assert len(list((out / "history").glob("*.h5"))) == outputs
    return outputs


def main():
    out = pathlib.Path(sys.argv[1])
    clients = int(sys.argv[2])
    steps, every = (int(v) for v in sys.argv[3:5]) if len(sys.argv) > 4 else (12, 4)
    outputs = check(out, clients, steps, every)
    print(f"read back with h5py: {outputs} outputs of theta, qv, cloud, rain and ground, every value exact")


if __name__ == "__main__":
    main()
