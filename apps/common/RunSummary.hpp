// What a workload prints when it ends: one JSON line on rank 0 of the clients, read by
// benchmark harnesses and tests (ranks, iterations, bytes, wall time, write times).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace apps {

/** Seconds since an arbitrary origin (MPI_Wtime, the clock the MPI ranks agree on best). */
inline double now() {
  return MPI_Wtime();
}

class RunSummary {
 public:
  /** comm: the clients' communicator; every client must record the same outputs. */
  RunSummary(MPI_Comm comm, std::string app, std::string config);

  /** This rank's client-visible time of one output iteration and the bytes it handed over. */
  void record_output(double seconds, std::uint64_t bytes);
  /** Adds a field to the JSON line, e.g. {"grid", "\"64x64x20\""} (value already JSON). */
  void add_field(const std::string& key, const std::string& json_value);
  /** Collective over comm; rank 0 prints the line. */
  void print(int iterations, double wall_seconds) const;

  /** Times write() (the hand-over of one output iteration) and records it with its bytes. */
  template <class Write>
  void time_output(std::uint64_t bytes, Write&& write) {
    const double start = now();
    write();
    record_output(now() - start, bytes);
  }

  /** Runs step(0) .. step(iterations - 1), then prints the line with the loop's wall time. */
  template <class Step>
  void run_loop(int iterations, Step&& step) {
    const double start = now();
    for (int i = 0; i < iterations; ++i) step(i);
    print(iterations, now() - start);
  }

 private:
  [[nodiscard]] std::vector<double> slowest_per_output() const;

  MPI_Comm comm_;
  std::string app_;
  std::string config_;
  std::vector<double> write_seconds_;
  std::uint64_t bytes_ = 0;
  std::string extra_;
};

}  // namespace apps
