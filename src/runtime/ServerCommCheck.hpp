// Which communicators hold Ecluse servers, for the opt-in MPI check (mpicheck/,
// docs/reliability.md): under dedicated cores or nodes, a client's blocking collective on such a
// communicator (most often MPI_COMM_WORLD) waits for servers that never join it.
#pragma once

#include <mpi.h>

namespace ecluse {

/** A client of a run with servers, from start to finalize: the servers are the ranks of world
 * outside `clients`. No communication. */
void watch_server_communicators(MPI_Comm world, MPI_Comm clients);
/** After finalize (or at the end of the runtime): every communicator is fine again. */
void stop_watching_server_communicators();

}  // namespace ecluse

/** For libecluse_mpicheck: the number of Ecluse servers in `comm`'s group while this process is
 * a client between start and finalize (0 otherwise, or for an intercommunicator). */
extern "C" int ecluse_servers_in_comm(MPI_Comm comm);
