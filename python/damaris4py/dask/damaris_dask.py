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


def return_scalar_from_position(DD, varname, pos=(0), client_rank=0, block_number=0):
    """Damaris's: `array[pos]` of the block, None when this server lacks it; a `pos` outside
    the block is printed and gives None, as in Damaris."""
    try:
        return insitu.scalar(DD, varname, pos, client_rank, block_number)
    except IndexError as err:
        print("damaris4py Error: IndexError: ", err)
    except KeyError as err:
        print("damaris4py: KeyError: No damaris client or block data ", err)
    return None


def return_dask_array(DD, client, varname, server_comm, print_array_component=False):
    """The dask.array of varname on rank 0 of server_comm, None on the other servers. With
    print_array_component, rank 0 prints the blocks' layout as Damaris does (below)."""
    entry = DD["iteration_data"].get(varname, {})
    sort_lists = server_comm.gather(entry.get("sort_list", []), root=0)
    if print_array_component and server_comm.Get_rank() == 0:
        print("Damaris variable: ", varname, ":\n", return_dask_block_layout(sort_lists))
    return insitu.dask_array(DD, varname, client=client, comm=server_comm)


def return_dask_block_layout(sort_lists, client_name="client"):
    """The text Damaris's return_dask_array prints: the nested list given to da.block, one
    `client.datasets['S<server>_I<iteration>_<magic>']['P<client>_B<block>']` per block (the
    dataset each Damaris server publishes), ordered by offsets, a row ending with ']\n'.
    `sort_lists`: each server's sort_list. Damaris nests to the depth of the third block's entry
    (3: right for 3-D variables of 3 blocks or more, an error otherwise); here to the offsets'."""
    blocks = sorted(((tuple(offsets), name, key) for sort_list in sort_lists
                     for name, key, offsets in sort_list), key=lambda block: block[0])
    if not blocks:
        return "data = []"
    ndim = max(len(blocks[0][0]), 1)
    text = "data = " + "[" * ndim
    previous = None
    for offsets, name, key in blocks:
        if previous is not None:
            text += _separator(previous, offsets, ndim)
        text += f"{client_name}.datasets['{name}']['{key}']"
        previous = offsets
    return text + "]" * ndim


def _separator(before, after, ndim):
    """',' between neighbours along the last axis; at a new row (or plane) each axis that wraps
    closes its list (']\n') and, after the ',', opens a new one."""
    closed = 0
    for dim in reversed(range(1, ndim)):
        if after[dim] > before[dim]:
            break
        closed += 1
    return "]\n" * closed + "," + "[" * closed
