// A run that dies: a client or a dedicated core is killed with SIGKILL in the middle (used by
// tests/python/test_dc_crash.py to check that nothing is left in /dev/shm and nobody hangs).
// "server-again": as "server", then each client that got an error writes and ends an iteration
// once more and prints what these calls returned.
#include <mpi.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "ecluse/ecluse.h"

namespace {

const char* kConfig = R"(<simulation name="crash"><architecture><dedicated cores="1"/>
  <virtual-nodes ranks-per-node="2"/><buffer size="1MiB"/></architecture><data>
  <layout name="l" type="double" dimensions="1000"/><variable name="v" layout="l"/></data>
  <storage><store name="s" type="null"/></storage></simulation>)";

void die_later(int milliseconds) {
  std::thread([milliseconds] {
    std::this_thread::sleep_for(std::chrono::milliseconds(milliseconds));
    raise(SIGKILL);
  }).detach();
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::string victim = argc > 1 ? argv[1] : "client";
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (ecluse_initialize_string(kConfig, MPI_COMM_WORLD) != ECLUSE_OK) {
    std::fprintf(stderr, "initialize: %s\n", ecluse_error_message());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (victim.rfind("server", 0) == 0 && rank == 1)
    die_later(300);  // rank 1 is node 0's dedicated core
  int is_client = 0;
  int status = ecluse_start(&is_client);
  std::vector<double> data(1000, 1.0);
  // Under error recovery the other node's client runs on: a bounded run there.
  const int iterations = victim == "server-again" ? 1500 : 100000;
  for (int it = 0; is_client && status == ECLUSE_OK && it < iterations; ++it) {
    if (victim == "client" && rank == 0 && it == 2) raise(SIGKILL);
    status = ecluse_write("v", data.data());
    if (status == ECLUSE_OK) status = ecluse_end_iteration();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (status != ECLUSE_OK) std::fprintf(stderr, "rank %d: %s\n", rank, ecluse_error_message());
  if (status != ECLUSE_OK && victim == "server-again") {
    for (const char* call : {"write", "end_iteration"}) {
      const int again =
          std::strcmp(call, "write") == 0 ? ecluse_write("v", data.data()) : ecluse_end_iteration();
      std::fprintf(stderr, "rank %d: again: %s: %s: %s\n", rank, call, ecluse_status_name(again),
                   again == ECLUSE_OK ? "" : ecluse_error_message());
    }
  }
  ecluse_finalize();
  MPI_Finalize();
  return status == ECLUSE_OK ? 0 : 1;
}
