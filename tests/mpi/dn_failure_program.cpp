// A dedicated node that stops answering (SIGSTOP) or dies (SIGKILL) in the middle of a run
// (used by tests/python/test_dn_failure.py: clients must fail with a clear error, not hang).
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "ecluse/ecluse.h"

namespace {

// 3 virtual nodes of one rank, the last one dedicated; the window of a client holds about
// three iterations, so a silent server blocks its clients within a few iterations.
const char* kConfig = R"(<simulation name="dnfail"><architecture><dedicated nodes="1"/>
  <virtual-nodes ranks-per-node="1"/><buffer size="50000"/></architecture><data>
  <layout name="l" type="double" dimensions="1000"/><variable name="v" layout="l"/></data>
  <storage><store name="s" type="null"/></storage></simulation>)";

int run_client(int rank, const std::string& victim, pid_t server) {
  std::vector<double> data(1000, 1.0);
  int status = ECLUSE_OK;
  for (int it = 0; status == ECLUSE_OK && it < 100000; ++it) {
    if (rank == 0 && it == 3) kill(server, victim == "stop" ? SIGSTOP : SIGKILL);
    status = ecluse_write("v", data.data());
    if (status == ECLUSE_OK) status = ecluse_end_iteration();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::string victim = argc > 1 ? argv[1] : "stop";
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> pids(static_cast<std::size_t>(size));
  const int me = static_cast<int>(getpid());
  MPI_Allgather(&me, 1, MPI_INT, pids.data(), 1, MPI_INT, MPI_COMM_WORLD);
  if (ecluse_initialize_string(kConfig, MPI_COMM_WORLD) != ECLUSE_OK) {
    std::fprintf(stderr, "initialize: %s\n", ecluse_error_message());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int is_client = 0;
  int status = ecluse_start(&is_client);
  if (is_client) status = run_client(rank, victim, static_cast<pid_t>(pids.back()));
  if (status != ECLUSE_OK) {
    std::fprintf(stderr, "rank %d: %s: %s\n", rank, ecluse_status_name(status),
                 ecluse_error_message());
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  ecluse_finalize();
  MPI_Finalize();
  return 0;
}
