// libecluse_mpicheck: an opt-in check, through the MPI profiling interface, of a simulation's
// blocking collectives under dedicated cores or nodes (docs/reliability.md). A client that calls
// one on a communicator holding Ecluse servers (MPI_COMM_WORLD, say) would wait there for ever:
// the servers never join it. With this library loaded (LD_PRELOAD, or linked before the MPI
// library), such a call does not start: it prints why on stderr and is an MPI error of class
// MPI_ERR_COMM, raised through the communicator's error handler (the default handler ends the
// job at once; with MPI_ERRORS_RETURN the call returns MPI_ERR_COMM). Costs a group translation
// per collective call on client ranks between ecluse_start and ecluse_finalize, nothing else.
//
// Fortran: Open MPI's Fortran bindings call the C profiling entry points (PMPI_Barrier) directly,
// so the C wrappers never see a Fortran program's calls. The Fortran entry points of `use mpi`
// / mpif.h (mpi_barrier_) and of `use mpi_f08` (mpi_barrier_f08_) are wrapped too, each
// forwarding to the next definition of its own name (the MPI library's, found with
// dlsym(RTLD_NEXT)): no profiling name is needed, so the library loads with any MPI, and a
// Fortran binding that does call the C entry point (MPICH's mpif.h) is merely checked twice.
// Also checked: the communicator constructors (MPI_Comm_split, _dup, _create, _split_type,
// MPI_Cart_create), collective over their parent, often a Fortran code's first touch of
// MPI_COMM_WORLD.
#include <dlfcn.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

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

/** A Fortran call on the communicator handle `comm` (by reference; null: let it through),
 * refused: *ierr (null for an absent optional ierror of mpi_f08) gets MPI_ERR_COMM. */
bool refused_fortran(const void* comm, const char* call, void* ierr) {
  if (comm == nullptr) return false;
  int error = MPI_SUCCESS;
  if (!refused(MPI_Comm_f2c(*static_cast<const MPI_Fint*>(comm)), call, &error)) return false;
  if (ierr != nullptr) *static_cast<MPI_Fint*>(ierr) = error;
  return true;
}

/** The MPI library's own definition of the Fortran entry point `name`, which this library
 * hides. */
void* next_definition(const char* name) {
  void* next = dlsym(RTLD_NEXT, name);
  if (next != nullptr) return next;
  std::fprintf(stderr,
               "ecluse: libecluse_mpicheck: no MPI definition of %s after this library; "
               "load it before the MPI library (LD_PRELOAD).\n",
               name);
  std::abort();
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

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* out) {
  ECLUSE_CHECKED(MPI_Comm_split, comm, comm, color, key, out);
}

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm* out) {
  ECLUSE_CHECKED(MPI_Comm_split_type, comm, comm, type, key, info, out);
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* out) {
  ECLUSE_CHECKED(MPI_Comm_dup, comm, comm, out);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* out) {
  ECLUSE_CHECKED(MPI_Comm_create, comm, comm, group, out);
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm* out) {
  ECLUSE_CHECKED(MPI_Cart_create, comm, comm, ndims, dims, periods, reorder, out);
}

}  // extern "C"

// Fortran entry points: every argument by reference, ierror last, the communicator at `at`
// (0-based). Each name is defined for `use mpi` / mpif.h (NAME_) and `use mpi_f08` (NAME_f08_).
#define ECLUSE_FORTRAN(symbol, label, at, n)                                   \
  extern "C" void symbol(ECLUSE_PARAMS_##n) {                                  \
    using Next = void (*)(ECLUSE_TYPES_##n);                                   \
    static const auto next = reinterpret_cast<Next>(next_definition(#symbol)); \
    if (refused_fortran(a##at, label, ECLUSE_LAST_##n)) return;                \
    next(ECLUSE_ARGS_##n);                                                     \
  }
#define ECLUSE_PARAMS_2 void *a0, void *a1
#define ECLUSE_TYPES_2 void*, void*
#define ECLUSE_ARGS_2 a0, a1
#define ECLUSE_LAST_2 a1
#define ECLUSE_PARAMS_3 ECLUSE_PARAMS_2, void* a2
#define ECLUSE_TYPES_3 ECLUSE_TYPES_2, void*
#define ECLUSE_ARGS_3 ECLUSE_ARGS_2, a2
#define ECLUSE_LAST_3 a2
#define ECLUSE_PARAMS_4 ECLUSE_PARAMS_3, void* a3
#define ECLUSE_TYPES_4 ECLUSE_TYPES_3, void*
#define ECLUSE_ARGS_4 ECLUSE_ARGS_3, a3
#define ECLUSE_LAST_4 a3
#define ECLUSE_PARAMS_5 ECLUSE_PARAMS_4, void* a4
#define ECLUSE_TYPES_5 ECLUSE_TYPES_4, void*
#define ECLUSE_ARGS_5 ECLUSE_ARGS_4, a4
#define ECLUSE_LAST_5 a4
#define ECLUSE_PARAMS_6 ECLUSE_PARAMS_5, void* a5
#define ECLUSE_TYPES_6 ECLUSE_TYPES_5, void*
#define ECLUSE_ARGS_6 ECLUSE_ARGS_5, a5
#define ECLUSE_LAST_6 a5
#define ECLUSE_PARAMS_7 ECLUSE_PARAMS_6, void* a6
#define ECLUSE_TYPES_7 ECLUSE_TYPES_6, void*
#define ECLUSE_ARGS_7 ECLUSE_ARGS_6, a6
#define ECLUSE_LAST_7 a6
#define ECLUSE_PARAMS_8 ECLUSE_PARAMS_7, void* a7
#define ECLUSE_TYPES_8 ECLUSE_TYPES_7, void*
#define ECLUSE_ARGS_8 ECLUSE_ARGS_7, a7
#define ECLUSE_LAST_8 a7
#define ECLUSE_PARAMS_9 ECLUSE_PARAMS_8, void* a8
#define ECLUSE_TYPES_9 ECLUSE_TYPES_8, void*
#define ECLUSE_ARGS_9 ECLUSE_ARGS_8, a8
#define ECLUSE_LAST_9 a8
#define ECLUSE_BOTH(name, label, at, n) \
  ECLUSE_FORTRAN(name##_, label, at, n) \
  ECLUSE_FORTRAN(name##_f08_, label, at, n)

ECLUSE_BOTH(mpi_barrier, "MPI_Barrier", 0, 2)
ECLUSE_BOTH(mpi_bcast, "MPI_Bcast", 4, 6)
ECLUSE_BOTH(mpi_reduce, "MPI_Reduce", 6, 8)
ECLUSE_BOTH(mpi_allreduce, "MPI_Allreduce", 5, 7)
ECLUSE_BOTH(mpi_scan, "MPI_Scan", 5, 7)
ECLUSE_BOTH(mpi_exscan, "MPI_Exscan", 5, 7)
ECLUSE_BOTH(mpi_gather, "MPI_Gather", 7, 9)
ECLUSE_BOTH(mpi_allgather, "MPI_Allgather", 6, 8)
ECLUSE_BOTH(mpi_scatter, "MPI_Scatter", 7, 9)
ECLUSE_BOTH(mpi_alltoall, "MPI_Alltoall", 6, 8)
ECLUSE_BOTH(mpi_comm_split, "MPI_Comm_split", 0, 5)
ECLUSE_BOTH(mpi_comm_dup, "MPI_Comm_dup", 0, 3)
ECLUSE_BOTH(mpi_comm_create, "MPI_Comm_create", 0, 4)
ECLUSE_BOTH(mpi_cart_create, "MPI_Cart_create", 0, 7)
