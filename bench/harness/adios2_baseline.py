"""ADIOS2 baseline: the VORPAL-IO-like kernel's data written with ADIOS2's BP5 engine.

Usage (under mpiexec, N ranks): adios2_baseline.py [--block 100x100x60] [--steps 20]
                                                   [--async on|off] [--out out/vorpal-bp5]

The PyPI wheel of ADIOS2 is serial (built without MPI) and has no compressors, so this is not
an MPI program: each process launched by mpiexec takes its rank from the launcher's environment
(OMPI_COMM_WORLD_RANK, PMI_RANK) and writes its own BP5 file, <out>/vorpal.r<rank>.bp, holding
its block of ex, ey, ez at its global place every step. The values are those of
apps/kernels/vorpal_io.cpp (a function of the global cell and the step). Without MPI the ranks
meet through files: each writes its timings to .adios2-rank<r>.json in the working directory,
and rank 0 waits for them and prints the one-line JSON summary the apps print.
"""
import argparse
import json
import os
import pathlib
import sys
import time

import numpy as np

COMPONENTS = ["ex", "ey", "ez"]
WAIT_FOR_RANKS_S = 120.0
FILES_NOTE = ("one BP5 file per rank: the PyPI wheel is serial (built without MPI) and has "
              "no compressors")


def launcher_rank_and_size():
    """This process's rank and the job's size, as Open MPI or a PMI launcher exports them."""
    rank = os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "0"))
    size = os.environ.get("OMPI_COMM_WORLD_SIZE", os.environ.get("PMI_SIZE", "1"))
    return int(rank), int(size)


def prime_factors(n):
    factors, p = [], 2
    while n > 1:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    return factors


def dims_create(size, ndims=3):
    """A balanced process grid, largest first, as MPI_Dims_create makes it for small counts:
    the largest prime factors go, one by one, to the dimension with the smallest product."""
    dims = [1] * ndims
    for factor in sorted(prime_factors(size), reverse=True):
        dims[dims.index(min(dims))] *= factor
    return sorted(dims, reverse=True)


def offset_of(rank, dims, block):
    """Ranks row-major over the process grid (the kernel's numbering)."""
    coords = (rank // (dims[1] * dims[2]), rank // dims[2] % dims[1], rank % dims[2])
    return [c * b for c, b in zip(coords, block)]


def vorpal_block(offset, block, component, step):
    """The kernel's values on this rank's block: exact small integers in double."""
    i, j, k = (np.arange(o, o + b, dtype=np.int64) for o, b in zip(offset, block))
    cell = (i[:, None, None] * 31 + j[None, :, None] * 17 + k[None, None, :] * 7) % 99991
    return step * 1e6 + component * 1e5 + cell.astype(np.float64)


def open_engine(adios2, path, asynchronous):
    adios = adios2.Adios()
    io = adios.declare_io("vorpal")
    io.set_engine("BP5")
    io.set_parameters({"AsyncWrite": "On" if asynchronous else "Off"})
    return adios, io


def define_variables(io, data, shape, offset, block):
    return [io.define_variable(name, data[c], shape, offset, block, True)
            for c, name in enumerate(COMPONENTS)]


def write_steps(adios2, args, rank, size):
    """Writes every step; returns the time of each step (begin_step to end_step) and close."""
    dims = dims_create(size)
    offset = offset_of(rank, dims, args.block)
    shape = [b * d for b, d in zip(args.block, dims)]
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    adios, io = open_engine(adios2, out, args.asynchronous)
    data = [vorpal_block(offset, args.block, c, 0) for c in range(3)]
    variables = define_variables(io, data, shape, offset, args.block)
    engine = io.open(str(out / f"vorpal.r{rank}.bp"), adios2.bindings.Mode.Write)
    step_times = []
    for step in range(args.steps):
        data = [vorpal_block(offset, args.block, c, step) for c in range(3)]
        start = time.perf_counter()
        engine.begin_step()
        for variable, values in zip(variables, data):
            engine.put(variable, values)
        engine.end_step()  # the puts are deferred until here: the arrays stay alive until then
        step_times.append(time.perf_counter() - start)
    start = time.perf_counter()
    engine.close()
    del adios
    return step_times, time.perf_counter() - start, dims


def rank_file(rank):
    return pathlib.Path(f".adios2-rank{rank}.json")


def publish(rank, record):
    """Writes this rank's record atomically, so rank 0 never reads half a file."""
    part = pathlib.Path(f".adios2-rank{rank}.part")
    part.write_text(json.dumps(record))
    part.rename(rank_file(rank))


def gather(size):
    """Rank 0: the records of every rank, waiting for the slow ones (no MPI to wait with)."""
    deadline = time.monotonic() + WAIT_FOR_RANKS_S
    while not all(rank_file(r).exists() for r in range(size)):
        if time.monotonic() > deadline:
            raise SystemExit(f"adios2_baseline: a rank did not report in {WAIT_FOR_RANKS_S} s")
        time.sleep(0.01)
    return [json.loads(rank_file(r).read_text()) for r in range(size)]


def summary_line(records, args, version, dims):
    """The apps' summary: each step counts with its slowest rank, as in RunSummary."""
    slowest = [max(r["steps"][s] for r in records) for s in range(args.steps)]
    approach = "adios2-bp5-async" if args.asynchronous else "adios2-bp5-sync"
    return {
        "app": "vorpal-io", "config": approach, "approach": approach,
        "ranks": len(records), "world_ranks": len(records),
        "iterations": args.steps, "outputs": args.steps,
        "bytes_written": sum(r["bytes"] for r in records),
        "wall_time_s": max(r["wall"] for r in records),
        "write_time_mean_s": sum(slowest) / len(slowest),
        "write_time_max_s": max(slowest),
        "close_time_s": max(r["close"] for r in records),
        "process_grid": "x".join(map(str, dims)),
        "engine": "BP5", "async_write": "On" if args.asynchronous else "Off",
        "adios2_version": version, "mpi": False, "files": FILES_NOTE,
    }


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--block", default="100x100x60")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--async", dest="asynchronous", choices=["on", "off"], default="off")
    parser.add_argument("--out", default="out/vorpal-bp5")
    args = parser.parse_args(argv)
    args.block = [int(n) for n in args.block.split("x")]
    args.asynchronous = args.asynchronous == "on"
    return args


def main(argv):
    args = parse(argv)
    import adios2  # here, so that --help works where the wheel is missing

    rank, size = launcher_rank_and_size()
    start = time.perf_counter()
    steps, close, dims = write_steps(adios2, args, rank, size)
    cells = args.block[0] * args.block[1] * args.block[2]
    publish(rank, {"steps": steps, "close": close, "wall": time.perf_counter() - start,
                   "bytes": 3 * 8 * cells * args.steps})
    if rank == 0:
        records = gather(size)
        print(json.dumps(summary_line(records, args, adios2.__version__, dims)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
