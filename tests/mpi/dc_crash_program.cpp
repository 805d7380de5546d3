// A run that dies: a client or a dedicated core is killed with SIGKILL in the middle (used by
// tests/python/test_dc_crash.py to check that nothing is left in /dev/shm and nobody hangs).
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
  if (victim == "server" && rank == 1) die_later(300);  // rank 1 is node 0's dedicated core
  int is_client = 0;
  int status = ecluse_start(&is_client);
  std::vector<double> data(1000, 1.0);
  for (int it = 0; is_client && status == ECLUSE_OK && it < 100000; ++it) {
    if (victim == "client" && rank == 0 && it == 2) raise(SIGKILL);
    status = ecluse_write("v", data.data());
    if (status == ECLUSE_OK) status = ecluse_end_iteration();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (status != ECLUSE_OK) std::fprintf(stderr, "rank %d: %s\n", rank, ecluse_error_message());
  ecluse_finalize();
  MPI_Finalize();
  return status == ECLUSE_OK ? 0 : 1;
}
