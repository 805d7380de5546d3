"""A 2-D heat equation on mpi4py that hands its output to Ecluse: the grid is split in blocks
over a Cartesian grid of the simulation ranks, each explicit (Jacobi) step exchanges one ghost
layer with the four neighbours, and every few steps the temperature is written (write: a copy)
and its change over the step is computed straight into Ecluse's buffer (alloc: no copy).

Usage: mpiexec -n 4 python heat.py [heat.xml] [steps] [every]
Boundaries are fixed: 1 above the first row, 0 on the other sides. Step s (from 0) is Ecluse
iteration s, and holds the field after s + 1 updates.
"""
import sys

import numpy as np
from mpi4py import MPI

import ecluse


def initial(i, j):
    """The starting temperature of global cells (i, j): exact in binary, no two rows alike."""
    return ((i * 37 + j * 11) % 17) / 16.0


def step(u, alpha):
    """One explicit update of the interior of u (ghosts included in u); the same arithmetic,
    element by element, whatever the decomposition, so any split gives the same bits."""
    c = u[1:-1, 1:-1]
    return c + alpha * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * c)


class Block:
    """This rank's block of the grid, with one ghost layer, and its neighbours."""

    def __init__(self, cart, nx, ny):
        self.cart = cart
        cx, cy = cart.Get_coords(cart.Get_rank())
        self.offset = (cx * nx, cy * ny)
        i = np.arange(self.offset[0], self.offset[0] + nx)[:, None]
        j = np.arange(self.offset[1], self.offset[1] + ny)[None, :]
        self.u = np.zeros((nx + 2, ny + 2))
        self.u[1:-1, 1:-1] = initial(i, j)
        if cx == 0:
            self.u[0, :] = 1.0
        self.up, self.down = cart.Shift(0, 1)
        self.left, self.right = cart.Shift(1, 1)

    def exchange(self):
        """Fills the ghost layer from the neighbours (rows are contiguous, columns copied)."""
        u, c = self.u, self.cart
        c.Sendrecv(u[1, :], dest=self.up, recvbuf=u[-1, :], source=self.down)
        c.Sendrecv(u[-2, :], dest=self.down, recvbuf=u[0, :], source=self.up)
        for send, recv, dest, source in ((1, -1, self.left, self.right),
                                         (-2, 0, self.right, self.left)):
            column = np.empty(u.shape[0])
            c.Sendrecv(np.ascontiguousarray(u[:, send]), dest=dest, recvbuf=column, source=source)
            if source != MPI.PROC_NULL:
                u[:, recv] = column


def run(session, steps, every):
    comm = session.client_comm
    px, py = MPI.Compute_dims(comm.Get_size(), 2)
    session.parameter_set("PX", px)
    session.parameter_set("PY", py)
    nx, ny = session.parameter_get("NX") // px, session.parameter_get("NY") // py
    alpha = session.parameter_get("ALPHA")
    block = Block(comm.Create_cart((px, py)), nx, ny)
    session.set_position("temperature", block.offset)
    session.set_position("change", block.offset)
    for s in range(steps):
        block.exchange()
        new = step(block.u, alpha)
        if (s + 1) % every == 0:
            np.subtract(new, block.u[1:-1, 1:-1], out=session.alloc("change"))
            session.commit("change")
        block.u[1:-1, 1:-1] = new
        if (s + 1) % every == 0:
            session.write("temperature", block.u)
        session.end_iteration()
    if comm.Get_rank() == 0:
        print(f"heat2d: {steps} steps on {px}x{py} ranks, output every {every}", flush=True)


def main():
    config = sys.argv[1] if len(sys.argv) > 1 else "heat.xml"
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    every = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    with ecluse.Session(config, MPI.COMM_WORLD) as session:
        if session.is_client:
            run(session, steps, every)


if __name__ == "__main__":
    main()
