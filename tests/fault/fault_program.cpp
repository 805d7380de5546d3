// Fault injection (run by tests/python/test_fault_injection.py): 4 ranks under dedicated cores or
// dedicated nodes write HDF5 files while one process (a client, a dedicated core or a dedicated
// node) is killed with SIGKILL a given number of milliseconds after MPI_Init, or just before
// ecluse_finalize if it gets there first. Survivors print every error they see and go on.
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

constexpr auto report = ecluse::fault::check;

constexpr int kIterations = 30;
constexpr int kValues = 8192;  // 64 KiB per write: a DC client's share holds about 15

// DC: 2 virtual nodes of 2 ranks, the last of each a dedicated core (rank 1 creates node 0's
// segment). DN: 4 virtual nodes of 1 rank, the last one dedicated (rank 3).
std::string config(const std::string& approach, const std::string& dir) {
  const std::string architecture =
      approach == "dc" ? R"(<dedicated cores="1"/><virtual-nodes ranks-per-node="2"/>)"
                       : R"(<dedicated nodes="1"/><virtual-nodes ranks-per-node="1"/>)";
  return R"(<simulation name="fault"><architecture>)" + architecture +
         R"(<buffer size="1MiB"/></architecture><data>
    <layout name="l" type="double" dimensions=")" +
         std::to_string(kValues) + R"("/><variable name="v" layout="l"/></data>
    <storage><store name="s" type="HDF5"><option key="FilesPath">)" +
         dir + R"(</option></store></storage></simulation>)";
}

int victim_rank(const std::string& approach, const std::string& victim) {
  if (victim == "client" || victim == "client-midway") return 0;
  if (victim == "server") return approach == "dc" ? 1 : 3;
  return -1;
}

void die_after(int milliseconds) {
  std::thread([milliseconds] {
    std::this_thread::sleep_for(std::chrono::milliseconds(milliseconds));
    raise(SIGKILL);
  }).detach();
}

// Values name their writer (its rank among the clients, the P<source> of the dataset) and their
// iteration, so that the test can check every stored block.
// `midway`: this client dies between its write and its end_iteration of iteration kMidway, so
// that its server holds that iteration in part.
constexpr int kMidway = 5;

bool simulate(int rank, bool midway) {
  MPI_Comm clients = MPI_COMM_NULL;
  if (!report(rank, "client_comm_get", ecluse_client_comm_get(&clients))) return false;
  int source = 0;
  MPI_Comm_rank(clients, &source);
  std::vector<double> data(kValues);
  for (int it = 0; it < kIterations; ++it) {
    for (int i = 0; i < kValues; ++i)
      data[static_cast<std::size_t>(i)] = source * 1e6 + it * 1e4 + i;
    if (!report(rank, "write", ecluse_write("v", data.data()))) return false;
    if (midway && it == kMidway) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the server takes the block
      raise(SIGKILL);
    }
    if (!report(rank, "end_iteration", ecluse_end_iteration())) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(15));
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 5) {
    std::fprintf(stderr,
                 "usage: fault_program dc|dn client|client-midway|server|none <delay ms> <dir>\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const std::string approach = argv[1];
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const bool victim = rank == victim_rank(approach, argv[2]);
  if (victim) die_after(std::atoi(argv[3]));
  bool ok = report(rank, "initialize",
                   ecluse_initialize_string(config(approach, argv[4]).c_str(), MPI_COMM_WORLD));
  if (ok) {  // the test expects a partial report only when every survivor got past set-up
    std::printf("rank %d: initialized\n", rank);
    std::fflush(stdout);
  }
  int is_client = 0;
  ok = ok && report(rank, "start", ecluse_start(&is_client));
  if (ok && is_client) ok = simulate(rank, victim && std::string(argv[2]) == "client-midway");
  if (victim) raise(SIGKILL);  // the latest point: every run loses its victim
  ok = report(rank, "finalize", ecluse_finalize()) && ok;
  MPI_Finalize();
  return ok ? 0 : 1;
}
