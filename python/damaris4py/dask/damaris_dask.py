"""damaris4py.dask.damaris_dask: Damaris 1.7's helper names over ecluse.insitu."""
from ecluse import insitu


def return_iteration(DD):
    return insitu.iteration(DD)


def return_magic_number(DD):
    return insitu.magic_number(DD)


def return_scheduler_filename(DD):
    """The scheduler-file of <pyscript>, "" without Dask (Damaris's name)."""
    return insitu.scheduler_file(DD)


return_scheduler_file = return_scheduler_filename  # the name of Ecluse's earlier scripts


def return_numpy_array(DD, varname, client_rank=0, block_number=0):
    """Block P<client_rank>_B<block_number> of a variable as the server holds it (ghosts
    included, a read-only view valid until main(DD) returns), or None when this server did not
    receive it."""
    entry = DD["iteration_data"].get(varname, {})
    return entry.get("numpy_data", {}).get(f"P{client_rank}_B{block_number}")


def return_scalar_from_position(DD, varname, pos=(0,), client_rank=0, block_number=0):
    return insitu.scalar(DD, varname, pos, client_rank, block_number)


def return_dask_array(DD, client, varname, server_comm, print_array_component=False):
    """The dask.array of varname on rank 0 of server_comm, None on the other servers."""
    array = insitu.dask_array(DD, varname, client=client, comm=server_comm)
    if print_array_component and array is not None:
        print(f"Damaris variable: {varname}: {array}")
    return array
