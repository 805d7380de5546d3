// MPI_Finalize that never returns after a peer died (run by tests/python/test_fault_injection.py).
// Open MPI 4.1 under --enable-recovery sometimes waits for ever in the final fence of
// MPI_Finalize when a process of the job is dead; this program makes that wait certain, through
// the MPI profiling interface: its MPI_Finalize runs the real one (which deletes the attributes
// of MPI_COMM_SELF first, as the standard says) and then stays for `linger` seconds. Two ranks
// under dedicated nodes: rank 0 the client, rank 1 the dedicated node.
// Usage: finalize_hang_program lost|none <linger seconds> <dir>
//   lost: the dedicated node kills itself while the client writes; the client must end within
//         ECLUSE_TIMEOUT of entering MPI_Finalize, with the timeout line and exit status 124.
//   none: nobody dies; the client lingers after MPI_Finalize and ends normally.
#include <mpi.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "FaultSupport.hpp"
#include "ecluse/ecluse.h"

namespace {

using ecluse::fault::check;

int g_linger = 0;  // seconds MPI_Finalize stays after the real one returned

constexpr int kIterations = 40;
constexpr int kValues = 8192;

std::string config(const std::string& dir) {
  return R"(<simulation name="hang"><architecture><dedicated nodes="1"/>
    <virtual-nodes ranks-per-node="1"/><buffer size="1MiB"/></architecture><data>
    <layout name="l" type="double" dimensions=")" +
         std::to_string(kValues) + R"("/><variable name="v" layout="l"/></data>
    <storage><store name="s" type="HDF5"><option key="FilesPath">)" +
         dir + R"(</option></store></storage></simulation>)";
}

bool simulate(int rank) {
  std::vector<double> data(kValues, 1.0);
  for (int it = 0; it < kIterations; ++it) {
    if (!check(rank, "write", ecluse_write("v", data.data()))) return false;
    if (!check(rank, "end_iteration", ecluse_end_iteration())) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return true;
}

}  // namespace

extern "C" int MPI_Finalize(void) {
  const int status = PMPI_Finalize();
  std::this_thread::sleep_for(std::chrono::seconds(g_linger));
  return status;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 4) {
    std::fprintf(stderr, "usage: finalize_hang_program lost|none <linger seconds> <dir>\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const bool lose = std::string(argv[1]) == "lost";
  g_linger = std::atoi(argv[2]);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  bool ok =
      check(rank, "initialize", ecluse_initialize_string(config(argv[3]).c_str(), MPI_COMM_WORLD));
  if (ok && lose && rank == 1) {
    std::thread([] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));  // within the client's writes
      raise(SIGKILL);
    }).detach();
  }
  int is_client = 0;
  ok = ok && check(rank, "start", ecluse_start(&is_client));
  if (ok && is_client) ok = simulate(rank);
  ok = check(rank, "finalize", ecluse_finalize()) && ok;
  MPI_Finalize();
  std::fprintf(stderr, "rank %d: after MPI_Finalize\n", rank);
  return ok ? 0 : 1;
}
