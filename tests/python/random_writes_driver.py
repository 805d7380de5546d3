"""The simulation of tests/python/test_random_writes.py, run under mpiexec: reads the case
(case.json: the variables, which blocks each client writes at each iteration, how, and where),
initializes Ecluse with case.xml and writes every block with values that name it
(random_writes_values). Each client writes the number of blocks it wrote to wrote-<source>."""
import json
import sys

import numpy as np
from mpi4py import MPI

import ecluse
from random_writes_values import block_values, ghost, interior


def padded(values, ghosts, pad):
    """`values` (the interior) inside an array with its ghost cells, itself inside `pad` more
    cells on each side when the write is to be given a non-contiguous view."""
    shape = [n + lo + hi + 2 * pad for n, (lo, hi) in zip(values.shape, ghosts)]
    whole = np.full(shape, ghost(values.dtype), dtype=values.dtype)
    inner = tuple(slice(pad + lo, pad + lo + n) for n, (lo, _) in zip(values.shape, ghosts))
    whole[inner] = values
    if pad == 0:
        return whole
    return whole[tuple(slice(pad, s - pad) for s in shape)]


def write_block(session, var, it, source, block, how, position):
    name = var["name"]
    if position is not None:
        layout_order = position[::-1] if var["fortran"] else position
        session.set_position(name, layout_order, block)
    values = block_values(var, it, source, block)
    data = padded(values, var["ghosts"], 1 if how == "view" else 0)
    if how == "alloc":
        room = session.alloc(name, block)
        room[...] = data
        session.commit(name, block)
    else:
        session.write(name, data, block)


def resize(session, var, source, it):
    """Sets the parameters of the variable's extents (N<index>_<dimension>, C order) to this
    iteration's, when the case changes them."""
    if "resize" not in var:
        return
    for d, n in enumerate(interior(var, source, it)):
        name = f"N{var['index']}_{d}"
        if session.parameter_get(name) != n:
            session.parameter_set(name, n)


def main():
    case = json.load(open(sys.argv[1]))
    with ecluse.Session("case.xml") as session:
        if not session.start():
            return
        source = session.client_comm.Get_rank()
        written = 0
        for it in range(case["iterations"]):
            for var in case["variables"]:
                if var["writes"][str(source)][it]:
                    resize(session, var, source, it)
                for block in var["writes"][str(source)][it]:
                    position = var["positions"].get(f"{source}/{block}")
                    how = var["how"][(it + block) % len(var["how"])]
                    write_block(session, var, it, source, block, how, position)
                    written += 1
            session.end_iteration()
        with open(f"wrote-{source}", "w") as f:
            f.write(str(written))


if __name__ == "__main__":
    main()
