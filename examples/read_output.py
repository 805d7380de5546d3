"""Reads the example simulation's output back with h5py and checks every value.

Usage: read_output.py OUT_DIR ITERATIONS CLIENTS
Works for every approach: with time partitioning each process writes its own file; with
dedicated cores each server writes one file holding the blocks of all its clients.
"""
import pathlib
import sys

import h5py
import numpy as np

NX, NY = 64, 48


def expected_field(iteration):
    i = np.arange(NX, dtype=np.float64)[:, None]
    j = np.arange(NY, dtype=np.float64)[None, :]
    return iteration * 1e6 + i * 1e3 + j


def slab_of(rank, clients):
    """First row and row count of a rank's slab: the first NX % clients ranks hold one more."""
    base, extra = divmod(NX, clients)
    return rank * base + min(rank, extra), base + (rank < extra)


def check_block(f, rank, it, clients):
    x0, nx = slab_of(rank, clients)
    t = f[f"temperature/P{rank}"]
    np.testing.assert_array_equal(t[...], expected_field(it)[x0:x0 + nx])
    assert list(t.attrs["global_offset"]) == [x0, 0]
    assert t.attrs["iteration"] == it and t.attrs["source"] == rank
    assert t.attrs["units"] in ("K", b"K")
    np.testing.assert_array_equal(f[f"diagnostics/stats/P{rank}"][...], [it, rank, nx, NY])
    assert (f"y/P{rank}" in f) == (it == 0), "non-time-varying y must be written once"


def check_per_process(out, iterations, clients):
    """Every client's block of every iteration, exactly once; returns the number of files."""
    files = sorted((out / "per-process").glob("*.h5"))
    for it in range(iterations):
        seen = []
        for path in (out / "per-process").glob(f"heat_It{it}_Pr*.h5"):
            with h5py.File(path, "r") as f:
                for name in f["temperature"]:
                    rank = int(name[1:])
                    check_block(f, rank, it, clients)
                    seen.append(rank)
        assert sorted(seen) == list(range(clients)), f"iteration {it}: blocks of {sorted(seen)}"
    return len(files)


def check_collective(out, iterations, clients):
    """The shared file holds the whole field: the slabs tile every row."""
    for it in range(iterations):
        with h5py.File(out / "collective" / f"heat_It{it}.h5", "r") as f:
            t = f["temperature"][...]
            assert t.shape == (NX, NY) and t.dtype == np.float64
            np.testing.assert_array_equal(t, expected_field(it))
    return iterations


def main():
    out = pathlib.Path(sys.argv[1])
    iterations, clients = int(sys.argv[2]), int(sys.argv[3])
    n_files = check_per_process(out, iterations, clients)
    n_shared = check_collective(out, iterations, clients)
    size = sum(p.stat().st_size for p in out.rglob("*.h5"))
    print(f"read back with h5py: {n_files} per-process/per-server files and {n_shared} collective "
          f"files ({size / 1e6:.2f} MB), every value as computed")


if __name__ == "__main__":
    main()
