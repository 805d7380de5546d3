// A rank that never completes a collective HDF5 call (run by tests/python/test_hdf5_watchdog.py).
// The last world rank stalls inside MPI-IO, through the MPI profiling interface: in MPI_File_open
// (HDF5's H5Fcreate) or in the collective write of a dataset's values (H5Dwrite), while the
// other writers of a Collective store wait there for it. Every writer must end within
// ECLUSE_TIMEOUT with exit status 124 and the watchdog's line naming the store, the file and
// the call. Usage: hdf5_stall_program tp|dc open|write <dir>.
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "FaultSupport.hpp"
#include "ecluse/ecluse.h"

namespace {

using ecluse::fault::check;

constexpr int kValues = 8192;  // 64 KiB per block: larger than any metadata write
const char* g_stall = "";      // "open" or "write"
bool g_stalled_rank = false;

void stall_if(const char* call) {
  if (!g_stalled_rank || std::strcmp(g_stall, call) != 0) return;
  std::fprintf(stderr, "stalling in %s\n", call);
  std::this_thread::sleep_for(std::chrono::seconds(60));  // the watchdog ends us first
}

bool large(int count, MPI_Datatype type) {
  int size = 0;
  PMPI_Type_size(type, &size);
  return static_cast<long long>(count) * size >= kValues * 8;
}

// TP: 3 clients share the store. DC: 2 virtual nodes of 2 ranks; the dedicated cores (ranks 1
// and 3) run the store.
std::string config(const std::string& approach, const std::string& dir, int writers) {
  const std::string architecture =
      approach == "dc" ? R"(<architecture><dedicated cores="1"/><virtual-nodes ranks-per-node="2"/>
                          <buffer size="1MiB"/></architecture>)"
                       : R"(<architecture><domains count="1"/></architecture>)";
  return R"(<simulation name="stall">)" + architecture +
         R"(<data><layout name="l" type="double" dimensions=")" + std::to_string(kValues) +
         R"(" global=")" + std::to_string(kValues * writers) +
         R"("/><variable name="v" layout="l"/></data>
    <storage><store name="shared" type="HDF5"><option key="FileMode">Collective</option>
    <option key="FilesPath">)" +
         dir + R"(</option></store></storage></simulation>)";
}

}  // namespace

extern "C" {

int MPI_File_open(MPI_Comm comm, const char* name, int mode, MPI_Info info, MPI_File* file) {
  stall_if("open");
  return PMPI_File_open(comm, name, mode, info, file);
}

int MPI_File_write_at_all(MPI_File file, MPI_Offset offset, const void* data, int count,
                          MPI_Datatype type, MPI_Status* status) {
  if (large(count, type)) stall_if("write");
  return PMPI_File_write_at_all(file, offset, data, count, type, status);
}

int MPI_File_write_all(MPI_File file, const void* data, int count, MPI_Datatype type,
                       MPI_Status* status) {
  if (large(count, type)) stall_if("write");
  return PMPI_File_write_all(file, data, count, type, status);
}

}  // extern "C"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 4) {
    std::fprintf(stderr, "usage: hdf5_stall_program tp|dc open|write <dir>\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const std::string approach = argv[1];
  g_stall = argv[2];
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  g_stalled_rank = rank == size - 1;
  const int writers = approach == "dc" ? size / 2 : size;
  bool ok =
      check(rank, "initialize",
            ecluse_initialize_string(config(approach, argv[3], writers).c_str(), MPI_COMM_WORLD));
  int is_client = 0;
  ok = ok && check(rank, "start", ecluse_start(&is_client));
  if (ok && is_client) {
    MPI_Comm clients = MPI_COMM_NULL;
    ok = check(rank, "client_comm_get", ecluse_client_comm_get(&clients));
    int source = 0;
    MPI_Comm_rank(clients, &source);
    const std::vector<double> data(kValues, source);
    const std::int64_t position[1] = {source * kValues};
    ok = ok && check(rank, "set_position", ecluse_set_position("v", position));
    ok = ok && check(rank, "write", ecluse_write("v", data.data()));
    ok = ok && check(rank, "end_iteration", ecluse_end_iteration());
    // DC: the dedicated cores' watchdog, not the clients' wait in finalize, must end the run.
    if (approach == "dc") std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  ok = check(rank, "finalize", ecluse_finalize()) && ok;
  MPI_Finalize();
  return ok ? 0 : 1;
}
