"""What a <pyscript>'s main(DD) uses on an Ecluse server (docs/python-insitu.md): the servers'
communicator, the clients it serves, a variable's blocks without ghosts, a value by position,
and a dask.array of a variable across all servers, built from the blocks' offsets. The names Damaris
users import from damaris4py are aliases of these (python/damaris4py/).

Every function takes DD as main(DD) received it; its arrays are read-only views of the server's
buffer, valid only until main(DD) returns: keep a copy (np.array(view)) of what you keep."""
import numpy as np

from . import _insitu_runtime as _runtime

# How long dask_array's root waits for the scheduler to note that it holds the blocks (at least
# timeout=): a round trip to the scheduler, seconds on a loaded node.
_HOLD_SECONDS = 60.0

_NO_DASK = ("no Dask in this run (DD['dask_env']['dask_scheduler_file'] is ''): give "
            "scheduler-file= on <pyscript> and start that scheduler before the simulation (when "
            "it was given, initialize said on stderr why the run goes without Dask)")


def server_comm():
    """The servers' communicator (mpi4py): every server running this script (the clients' in
    time partitioning)."""
    return _runtime._writers_comm(_runtime.state())


def known_clients():
    """Ranks (in the clients' communicator, as in the blocks' P<rank> keys) of the clients this
    server serves, sorted: from the placement, known from the first iteration whether or not
    they wrote yet (a dedicated core's clients, a dedicated node rank's; under time partitioning
    the client running the script)."""
    return list(_runtime.state().clients)


def iteration(DD):
    return DD["iteration_data"]["iteration"]


def magic_number(DD):
    """The run-unique identifier, the same on every rank (Damaris's simulation_magic_number)."""
    return DD["damaris_env"]["simulation_magic_number"]


def scheduler_file(DD):
    """The scheduler-file of <pyscript>, "" without Dask."""
    return DD["dask_env"]["dask_scheduler_file"]


def dask_client(DD=None):
    """The Dask client of this server (attached to the scheduler of scheduler-file)."""
    client = _runtime.state().client
    if client is None:
        raise RuntimeError(_NO_DASK)
    return client


def worker_address():
    """The address of this server's own Dask worker."""
    worker = _runtime.state().worker
    if worker is None:
        raise RuntimeError(_NO_DASK)
    return worker.address


def interior(DD, varname, key):
    """Block `key` ('P<source>_B<block>') of a variable without its ghost cells (a view)."""
    entry = DD["iteration_data"][varname]
    lo, hi = entry["ghosts"][key]
    array = entry["numpy_data"][key]
    return array[tuple(slice(a, n - b) for a, b, n in zip(lo, hi, array.shape))]


def blocks(DD, varname):
    """(key, offsets, interior view) of each of this server's blocks of a variable, by key."""
    entry = DD["iteration_data"].get(varname)
    if entry is None:
        return []
    return [(key, tuple(offsets), interior(DD, varname, key))
            for _, key, offsets in sorted(entry["sort_data"], key=lambda item: item[1])]


def scalar(DD, varname, pos=(0,), client_rank=0, block_number=0):
    """`array[pos]` of block P<client_rank>_B<block_number> of a variable, NumPy indexing as
    Damaris's return_scalar_from_position does (an element, or a row when `pos` names fewer
    dimensions than the block has), or None when this server did not receive that block;
    IndexError when `pos` is outside it."""
    entry = DD["iteration_data"].get(varname, {})
    array = entry.get("numpy_data", {}).get(f"P{client_rank}_B{block_number}")
    if array is None:
        return None
    return array[tuple(pos) if isinstance(pos, list) else pos]


def _scatter(DD, varname, client):
    """Copies this server's blocks (interiors) to its own worker: (offsets, shape, dtype,
    future) each."""
    address = worker_address()
    pieces = []
    for _, offsets, view in blocks(DD, varname):
        future = client.scatter(np.array(view), workers=[address], hash=False)
        pieces.append((offsets, view.shape, view.dtype.str, future))
    return pieces


def _grid(pieces):
    """The blocks as the nested list da.block wants, from their offsets; ValueError when they do
    not tile a box."""
    ndim = len(pieces[0][0])
    axes = [sorted({p[0][d] for p in pieces}) for d in range(ndim)]
    cells = {tuple(axes[d].index(p[0][d]) for d in range(ndim)): p for p in pieces}
    if len(cells) != len(pieces) or len(cells) != int(np.prod([len(a) for a in axes])):
        raise ValueError(f"the {len(pieces)} blocks do not tile a box (offsets per dimension: "
                         f"{axes}); dask_array needs blocks on a regular grid")
    return _nest(cells, axes, ())


def _nest(cells, axes, prefix):
    """A module function, not a closure calling itself: that closure would be a reference cycle
    holding the blocks' futures (and their data on the workers) until the garbage collector
    runs, past the script's call and up to finalize, where the workers could then not retire."""
    import dask.array as da
    if len(prefix) == len(axes):
        offsets, shape, dtype, future = cells[prefix]
        return da.from_delayed(_delayed(future), shape=shape, dtype=dtype)
    return [_nest(cells, axes, prefix + (i,)) for i in range(len(axes[len(prefix)]))]


def _delayed(future):
    import dask
    return dask.delayed(lambda x: x)(future)


def _held(client, futures):
    """None once the scheduler knows that `client` holds `futures`, else the error to raise.
    The futures got from another server's dataset are held by that dataset alone until the
    scheduler reads this client's claim, which goes on the client's batched stream, later than
    get_dataset's answer: were that server to unpublish its dataset and drop its own futures
    first (it does once the root answers), the scheduler would forget its blocks and computing
    the array would fail with "lost dependencies". The scheduler tells a client that a key is in
    memory only once it noted the client's claim: the futures are done then."""
    if not futures:
        return None
    from distributed import wait
    seconds = max(float(_runtime.state().dask.get("timeout") or 0), _HOLD_SECONDS)
    try:
        wait(futures, timeout=seconds)
    except Exception as error:  # noqa: BLE001  (TimeoutError; the client closed)
        return RuntimeError(f"dask_array: the Dask scheduler did not confirm within {seconds:g} "
                            f"s that the first server holds the {len(futures)} block(s) of the "
                            f"array ({type(error).__name__}: {error})")
    lost = [f for f in futures if f.status != "finished"]
    if lost:
        return RuntimeError(f"dask_array: {len(lost)} block(s) of the array are not on the "
                            f"workers any more (the first, {lost[0].key!r}, is "
                            f"{lost[0].status}): a worker was lost")
    return None


def dask_array(DD, varname, client=None, comm=None, root=0):
    """A dask.array of `varname` over every server's blocks (ghosts removed), placed by their
    offsets, on rank `root` of the servers' communicator (None elsewhere). Collective over the
    servers: every server must call it for the same iteration. Each server's blocks are copied
    to its own Dask worker; the array holds them until it is dropped. Raised on every server:
    ValueError when the blocks do not tile a box, RuntimeError when the scheduler does not
    confirm that the root holds them (_held)."""
    import dask.array as da
    client = client or dask_client(DD)
    comm = comm or server_comm()
    name = f"ecluse-{magic_number(DD)}-{varname}-{iteration(DD)}-{comm.Get_rank()}"
    mine = _scatter(DD, varname, client)
    client.publish_dataset([p[3] for p in mine], name=name)
    shapes = comm.gather([(p[0], p[1], p[2]) for p in mine], root=root)
    result, problem = None, None
    if comm.Get_rank() == root:
        pieces = []
        for rank, described in enumerate(shapes):
            futures = client.get_dataset(f"ecluse-{magic_number(DD)}-{varname}-{iteration(DD)}-"
                                         f"{rank}")
            pieces += [d + (f,) for d, f in zip(described, futures)]
        problem = _held(client, [p[3] for p in pieces])
        try:
            result = da.block(_grid(pieces)) if pieces and problem is None else None
        except ValueError as error:  # blocks that do not tile a box: said on every server
            problem = error
    # Past this, every server lets go of its blocks: only the root's futures hold them.
    problem = comm.bcast(problem, root=root)
    client.unpublish_dataset(name)
    if problem is not None:
        raise problem
    return result
