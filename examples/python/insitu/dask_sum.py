"""A global sum with Dask across the servers, checked against the simulation's own: every server
copies its blocks to its Dask worker, the first server assembles the dask.array of the whole
field from the blocks' offsets and sums it; the example simulation defines cell (i, j) of
iteration t as t*1e6 + i*1e3 + j (examples/simulation.c, expected()), so the exact total is
known. Written with damaris4py's names: the same script runs on Damaris 1.7."""
from damaris4py.dask import damaris_dask
from damaris4py.server import getservercomm
from distributed import Client


def simulation_sum(iteration, nx, ny):
    return (iteration * 1e6 * nx * ny + 1e3 * (nx * (nx - 1) // 2) * ny
            + (ny * (ny - 1) // 2) * nx)


_client = None


def main(DD):
    global _client
    if _client is None:  # one client for the run (as Damaris's examples make one per call)
        _client = Client(scheduler_file=damaris_dask.return_scheduler_filename(DD), timeout="30s")
    comm = getservercomm()
    field = damaris_dask.return_dask_array(DD, _client, "temperature", comm)
    if field is None:  # only the first server holds the array
        return
    iteration = damaris_dask.return_iteration(DD)
    total = float(field.sum().compute())
    expected = simulation_sum(iteration, *field.shape)
    verdict = "ok" if total == expected else "MISMATCH"
    print(f"dask_sum: iteration {iteration} shape {field.shape} sum {total:.17g} "
          f"simulation {expected:.17g} {verdict}", flush=True)
