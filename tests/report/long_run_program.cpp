// A long TP run (used by tests/python/test_report_long_run.py): many iterations, a tiny variable
// written every K-th one to the null store; prints rank 0's resident memory after initialize and
// its peak after finalize, to show that the report's memory does not grow with the iterations.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "ecluse/ecluse.h"

namespace {

const char* kConfig = R"(<simulation name="long"><architecture><dedicated cores="0"/>
  </architecture><data><layout name="l" type="double" dimensions="4"/>
  <variable name="v" layout="l"/></data>
  <storage><store name="s" type="null"/></storage></simulation>)";

// A field of /proc/self/status in kB (VmRSS: now, VmHWM: the peak so far).
long status_kb(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  const std::string key = std::string(field) + ":";
  while (std::getline(status, line)) {
    if (line.rfind(key, 0) == 0) return std::atol(line.c_str() + key.size());
  }
  return -1;
}

int check(int status, const char* what) {
  if (status != ECLUSE_OK) {
    std::fprintf(stderr, "%s: %s\n", what, ecluse_error_message());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long iterations = argc > 1 ? std::atol(argv[1]) : 100000;
  const long every = argc > 2 ? std::atol(argv[2]) : 100;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  check(ecluse_initialize_string(kConfig, MPI_COMM_WORLD), "initialize");
  const long start_kb = status_kb("VmRSS");
  std::vector<double> data(4, 1.0 + rank);
  for (long it = 0; it < iterations; ++it) {
    // Outputs every `every` iterations, and at irregular gaps: every 7th output has a second
    // one right after it.
    if (it % every == 0 || (it % every == 1 && it % (7 * every) == 1)) {
      check(ecluse_write("v", data.data()), "write");
    }
    check(ecluse_end_iteration(), "end_iteration");
  }
  check(ecluse_finalize(), "finalize");
  if (rank == 0) {
    std::printf("{\"rss_start_kb\": %ld, \"hwm_end_kb\": %ld, \"iterations\": %ld}\n", start_kb,
                status_kb("VmHWM"), iterations);
  }
  MPI_Finalize();
  return 0;
}
