"""Reads the example simulation's output back with h5py and checks every value.

Usage: read_output.py OUT_DIR ITERATIONS RANKS
"""
import pathlib
import sys

import h5py
import numpy as np

NX, NY = 64, 48


def expected_field(iteration, nx_total=NX, ny=NY):
    i = np.arange(nx_total, dtype=np.float64)[:, None]
    j = np.arange(ny, dtype=np.float64)[None, :]
    return iteration * 1e6 + i * 1e3 + j


def check_per_process(out, iterations, ranks):
    nx = NX // ranks
    files = sorted((out / "per-process").glob("*.h5"))
    assert len(files) == iterations * ranks, f"expected {iterations * ranks} files, found {len(files)}"
    for it in range(iterations):
        for rank in range(ranks):
            with h5py.File(out / "per-process" / f"heat_It{it}_Pr{rank}.h5", "r") as f:
                t = f[f"temperature/P{rank}"]
                want = expected_field(it)[rank * nx:(rank + 1) * nx]
                np.testing.assert_array_equal(t[...], want)
                assert list(t.attrs["global_offset"]) == [rank * nx, 0]
                assert t.attrs["iteration"] == it and t.attrs["source"] == rank
                assert t.attrs["units"] in ("K", b"K")
                stats = f[f"diagnostics/stats/P{rank}"][...]
                np.testing.assert_array_equal(stats, [it, rank, nx, NY])
                assert ("y" in f) == (it == 0), "non-time-varying y must be written once"
    return len(files)


def check_collective(out, iterations, ranks):
    nx = NX // ranks
    for it in range(iterations):
        with h5py.File(out / "collective" / f"heat_It{it}.h5", "r") as f:
            t = f["temperature"][...]
            assert t.shape == (NX, NY) and t.dtype == np.float64
            np.testing.assert_array_equal(t[: nx * ranks], expected_field(it)[: nx * ranks])
    return iterations


def main():
    out = pathlib.Path(sys.argv[1])
    iterations, ranks = int(sys.argv[2]), int(sys.argv[3])
    n_files = check_per_process(out, iterations, ranks)
    n_shared = check_collective(out, iterations, ranks)
    size = sum(p.stat().st_size for p in out.rglob("*.h5"))
    print(f"read back with h5py: {n_files} per-process files and {n_shared} collective files "
          f"({size / 1e6:.2f} MB), every value as computed")


if __name__ == "__main__":
    main()
