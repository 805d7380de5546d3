// The one-line JSON summary of a workload. A write is as slow as its slowest client (the
// next halo exchange waits for it), so each output iteration counts with its maximum.
#include "RunSummary.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <utility>

namespace apps {

namespace {

// A path may hold quotes or backslashes; other control characters are not expected in one.
std::string json_escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

RunSummary::RunSummary(MPI_Comm comm, std::string app, std::string config)
    : comm_(comm), app_(std::move(app)), config_(std::move(config)) {}

void RunSummary::record_output(double seconds, std::uint64_t bytes) {
  write_seconds_.push_back(seconds);
  bytes_ += bytes;
}

void RunSummary::add_field(const std::string& key, const std::string& json_value) {
  extra_ += ", \"" + key + "\": " + json_value;
}

std::vector<double> RunSummary::slowest_per_output() const {
  std::vector<double> slowest(write_seconds_.size());
  MPI_Allreduce(write_seconds_.data(), slowest.data(), static_cast<int>(slowest.size()), MPI_DOUBLE,
                MPI_MAX, comm_);
  return slowest;
}

void RunSummary::print(int iterations, double wall_seconds) const {
  const std::vector<double> slowest = slowest_per_output();
  std::uint64_t bytes = 0;
  MPI_Reduce(&bytes_, &bytes, 1, MPI_UINT64_T, MPI_SUM, 0, comm_);
  double wall = 0;
  MPI_Reduce(&wall_seconds, &wall, 1, MPI_DOUBLE, MPI_MAX, 0, comm_);
  int rank = 0, ranks = 0, world = 0;
  MPI_Comm_rank(comm_, &rank);
  MPI_Comm_size(comm_, &ranks);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  if (rank != 0) return;
  const double total = std::accumulate(slowest.begin(), slowest.end(), 0.0);
  const double mean = slowest.empty() ? 0.0 : total / static_cast<double>(slowest.size());
  const double max = slowest.empty() ? 0.0 : *std::max_element(slowest.begin(), slowest.end());
  std::printf(
      "{\"app\": \"%s\", \"config\": \"%s\", \"ranks\": %d, \"world_ranks\": %d, "
      "\"iterations\": %d, \"outputs\": %zu, \"bytes_written\": %llu, \"wall_time_s\": %.6f, "
      "\"write_time_mean_s\": %.6f, \"write_time_max_s\": %.6f%s}\n",
      app_.c_str(), json_escaped(config_).c_str(), ranks, world, iterations, slowest.size(),
      static_cast<unsigned long long>(bytes), wall, mean, max, extra_.c_str());
  std::fflush(stdout);
}

}  // namespace apps
