// Scheduled writes side by side: every rank writes and fsyncs its own file each round, all at
// once (off) and with ConcurrentWriters W = 1, 2, ... through the WriteScheduler; JSON with the
// total time and the spread of the per-writer write times (turn waits excluded) for each.
// Usage: mpiexec -n N schedule [MiB per write] [rounds] [directory]
#include <fcntl.h>
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "../BenchSupport.hpp"
#include "accounting/Accounting.hpp"
#include "writer/WriteScheduler.hpp"

namespace {

using ecluse::Json;

// One write of `data` to a fresh file, fsynced; returns its seconds.
double write_file(const std::string& path, const std::vector<char>& data) {
  const double start = ecluse::wall_clock();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || ::write(fd, data.data(), data.size()) != static_cast<ssize_t>(data.size()) ||
      ::fsync(fd) != 0) {
    std::perror(path.c_str());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  ::close(fd);
  return ecluse::wall_clock() - start;
}

std::vector<double> gather_all(const std::vector<double>& mine) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<double> all(mine.size() * static_cast<std::size_t>(size));
  MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(),
                static_cast<int>(mine.size()), MPI_DOUBLE, MPI_COMM_WORLD);
  return all;
}

Json spread(const std::vector<double>& seconds) {
  return Json::object()
      .set("min", ecluse::bench::percentile(seconds, 0))
      .set("median", ecluse::bench::median(seconds))
      .set("p99", ecluse::bench::percentile(seconds, 99))
      .set("max", ecluse::bench::maximum(seconds));
}

// `concurrent` 0: no schedule. Returns the case's JSON (the same on every rank).
Json run_case(int concurrent, int rounds, const std::vector<char>& data, const std::string& dir) {
  ecluse::Accounting accounting;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  auto scheduler =
      concurrent > 0 ? std::make_unique<ecluse::WriteScheduler>(MPI_COMM_WORLD, concurrent, "bench")
                     : nullptr;
  std::vector<double> writes;
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = ecluse::wall_clock();
  for (int round = 0; round < rounds; ++round) {
    const std::string path = dir + "/w" + std::to_string(rank) + "_r" + std::to_string(round);
    const ecluse::TurnScope turn(scheduler.get(), accounting);
    writes.push_back(write_file(path, data));
  }
  if (scheduler) scheduler->leave();
  MPI_Barrier(MPI_COMM_WORLD);
  const double total = ecluse::wall_clock() - start;
  const double waited = scheduler ? scheduler->waits().seconds : 0.0;
  return Json::object()
      .set("concurrent_writers", concurrent == 0 ? Json("off") : Json(concurrent))
      .set("total_seconds", total)
      .set("write_seconds", spread(gather_all(writes)))
      .set("turn_wait_seconds_per_writer", spread(gather_all({waited})));
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int mib = argc > 1 ? std::atoi(argv[1]) : 16;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  const std::string dir = argc > 3 ? argv[3] : "schedule-bench-files";
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) std::filesystem::create_directories(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  const std::vector<char> data(static_cast<std::size_t>(mib) << 20, 'x');
  Json cases = Json::array();
  std::vector<int> concurrent = {0, 1, 2};
  if (size / 2 > 2) concurrent.push_back(size / 2);
  for (const int w : concurrent) cases.push_back(run_case(w, rounds, data, dir));
  if (rank == 0) {
    const unsigned cores = std::thread::hardware_concurrency();
    Json out = Json::object()
                   .set("benchmark", "schedule")
                   .set("writers", size)
                   .set("mib_per_write", mib)
                   .set("rounds", rounds)
                   .set("fsync", true)
                   .set("store",
                        "raw files, one per writer and round, fsynced (WriteScheduler "
                        "driven directly, as the HDF5 store's writers are)")
                   .set("cores", static_cast<int>(cores))
                   .set("oversubscribed", size > static_cast<int>(cores))
                   .set("cases", cases);
    std::printf("%s\n", out.dump().c_str());
    ecluse::bench::remove_files(dir);
  }
  MPI_Finalize();
  return 0;
}
