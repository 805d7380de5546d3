// libecluse_mpicheck: an opt-in check, through the MPI profiling interface, of a simulation's
// blocking collectives under dedicated cores or nodes (docs/reliability.md). A client that calls
// one on a communicator holding Ecluse servers (MPI_COMM_WORLD, say) would wait there for ever:
// the servers never join it. With this library loaded (LD_PRELOAD, or linked before the MPI
// library), such a call does not start: it prints why on stderr and is an MPI error of class
// MPI_ERR_COMM, raised through the communicator's error handler (the default handler ends the
// job at once; with MPI_ERRORS_RETURN the call returns MPI_ERR_COMM). Costs a group translation
// per collective call on client ranks between ecluse_start and ecluse_finalize, nothing else.
#include <mpi.h>

#include <cstdio>

extern "C" int ecluse_servers_in_comm(MPI_Comm comm);

namespace {

bool refused(MPI_Comm comm, const char* call, int* error) {
  const int servers = ecluse_servers_in_comm(comm);
  if (servers == 0) return false;
  int rank = -1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr,
               "ecluse: world rank %d: %s on a communicator that holds %d Ecluse server "
               "rank(s) (MPI_COMM_WORLD, or one made from it), which never join it: the call "
               "would block for ever. Use the communicator from ecluse_client_comm_get "
               "(refused by libecluse_mpicheck with MPI_ERR_COMM).\n",
               rank, call, servers);
  std::fflush(stderr);
  *error = MPI_ERR_COMM;
  PMPI_Comm_call_errhandler(comm, MPI_ERR_COMM);
  return true;
}

}  // namespace

#define ECLUSE_CHECKED(call, comm, ...)           \
  int error = MPI_SUCCESS;                        \
  if (refused(comm, #call, &error)) return error; \
  return P##call(__VA_ARGS__)

extern "C" {

int MPI_Barrier(MPI_Comm comm) {
  ECLUSE_CHECKED(MPI_Barrier, comm, comm);
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  ECLUSE_CHECKED(MPI_Bcast, comm, buffer, count, type, root, comm);
}

int MPI_Reduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm) {
  ECLUSE_CHECKED(MPI_Reduce, comm, in, out, count, type, op, root, comm);
}

int MPI_Allreduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  ECLUSE_CHECKED(MPI_Allreduce, comm, in, out, count, type, op, comm);
}

int MPI_Scan(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  ECLUSE_CHECKED(MPI_Scan, comm, in, out, count, type, op, comm);
}

int MPI_Exscan(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  ECLUSE_CHECKED(MPI_Exscan, comm, in, out, count, type, op, comm);
}

int MPI_Gather(const void* in, int in_count, MPI_Datatype in_type, void* out, int out_count,
               MPI_Datatype out_type, int root, MPI_Comm comm) {
  ECLUSE_CHECKED(MPI_Gather, comm, in, in_count, in_type, out, out_count, out_type, root, comm);
}

int MPI_Gatherv(const void* in, int in_count, MPI_Datatype in_type, void* out,
                const int out_counts[], const int displacements[], MPI_Datatype out_type, int root,
                MPI_Comm comm) {
  ECLUSE_CHECKED(MPI_Gatherv, comm, in, in_count, in_type, out, out_counts, displacements, out_type,
                 root, comm);
}

int MPI_Allgather(const void* in, int in_count, MPI_Datatype in_type, void* out, int out_count,
                  MPI_Datatype out_type, MPI_Comm comm) {
  ECLUSE_CHECKED(MPI_Allgather, comm, in, in_count, in_type, out, out_count, out_type, comm);
}

int MPI_Allgatherv(const void* in, int in_count, MPI_Datatype in_type, void* out,
                   const int out_counts[], const int displacements[], MPI_Datatype out_type,
                   MPI_Comm comm) {
  ECLUSE_CHECKED(MPI_Allgatherv, comm, in, in_count, in_type, out, out_counts, displacements,
                 out_type, comm);
}

int MPI_Scatter(const void* in, int in_count, MPI_Datatype in_type, void* out, int out_count,
                MPI_Datatype out_type, int root, MPI_Comm comm) {
  ECLUSE_CHECKED(MPI_Scatter, comm, in, in_count, in_type, out, out_count, out_type, root, comm);
}

int MPI_Alltoall(const void* in, int in_count, MPI_Datatype in_type, void* out, int out_count,
                 MPI_Datatype out_type, MPI_Comm comm) {
  ECLUSE_CHECKED(MPI_Alltoall, comm, in, in_count, in_type, out, out_count, out_type, comm);
}

int MPI_Alltoallv(const void* in, const int in_counts[], const int in_displacements[],
                  MPI_Datatype in_type, void* out, const int out_counts[],
                  const int out_displacements[], MPI_Datatype out_type, MPI_Comm comm) {
  ECLUSE_CHECKED(MPI_Alltoallv, comm, in, in_counts, in_displacements, in_type, out, out_counts,
                 out_displacements, out_type, comm);
}

}  // extern "C"
