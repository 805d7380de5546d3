"""The example simulation of examples/simulation.c in Python: each rank owns a slab of a 2-D
temperature field (with ghost cells), computes, and hands it to Ecluse every iteration.

Usage: mpiexec -n 4 python simulation.py [simulation.xml] [iterations]
Same configuration, same values, same output files as the C example (read_output.py checks both).
"""
import sys

import numpy as np
from mpi4py import MPI

import ecluse


def on_checkpoint(event, source, iteration, args):
    """Bound to "checkpoint" (declared in <actions>); the C example's on_checkpoint."""
    if source == 0:
        print(f"event {event} at iteration {iteration}", flush=True)


def compute(slab, x0, iteration):
    """Global cell (i, j) holds iteration * 1e6 + i * 1e3 + j, ghosts -1: readers can check it."""
    nx, ny = slab.shape[0] - 2, slab.shape[1] - 2
    i = np.arange(x0, x0 + nx, dtype=np.float64)[:, None]
    j = np.arange(ny, dtype=np.float64)[None, :]
    slab.fill(-1.0)
    slab[1:-1, 1:-1] = iteration * 1e6 + i * 1e3 + j


def run_client(session, iterations):
    comm = session.client_comm
    rank, size = comm.Get_rank(), comm.Get_size()
    nx_global, ny = session.parameter_get("NX"), session.parameter_get("NY")
    # The first nx_global % size ranks take one row more, so the slabs tile all the rows.
    nx = nx_global // size + (rank < nx_global % size)
    x0 = rank * (nx_global // size) + min(rank, nx_global % size)
    session.parameter_set("ROWS", nx)
    session.set_position("temperature", (x0, 0))
    slab = np.empty((nx + 2, ny + 2), dtype=np.float64)
    session.write("y", 0.5 * np.arange(ny, dtype=np.float32))
    for it in range(iterations):
        compute(slab, x0, it)
        session.write("temperature", slab)
        session.write("diagnostics/stats", np.array([it, rank, nx, ny], dtype=np.int32))
        if it == iterations - 1:
            session.signal("checkpoint")
        session.end_iteration()
    if rank == 0:
        print(f"heat: {iterations} iterations on {size} ranks written", flush=True)


def main():
    config = sys.argv[1] if len(sys.argv) > 1 else "simulation.xml"
    iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with ecluse.Session(config, MPI.COMM_WORLD) as session:
        session.bind("checkpoint", on_checkpoint)
        if session.is_client:
            run_client(session, iterations)


if __name__ == "__main__":
    main()
