// What the throughput benchmarks of dedicated cores and dedicated nodes share: the raw write
// they compare with, the same store run in process (TP), and a clean slate between runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ecluse::bench {

/** One measurement's files: `iterations` files of `bytes` each under `dir`, written in `chunk`
 * pieces by the raw baseline. */
struct ThroughputRun {
  std::string dir;
  std::uint64_t bytes = 0;
  std::uint64_t chunk = 0;
  int iterations = 0;
};

/** How the raw baseline writes a file: plain (dd-like), or mimicking the HDF5 store's file
 * handling (fallocate of the payload plus a margin, write, truncate, rename from ".part"), or
 * plain with each file's fsync on a second thread while the next file is written (what the
 * servers' store thread does: the disk's speed when writes and fsyncs overlap). */
enum class RawKind { Plain, LikeStore, Pipelined };

int world_rank();

/** One file per iteration written by rank 0 while rank 1 sleeps; fsync after close, as the
 * stores' files are fsynced (by the "sync" action) after they are renamed. Seconds on rank 0. */
double raw_write(const ThroughputRun& run, const std::vector<double>& data, bool fsync,
                 RawKind kind = RawKind::Plain);

/** The store of the TP configuration `xml` run in process on rank 0 alone while rank 1 sleeps
 * (the store's own throughput, no transport); fsync of each file of `simulation` when asked. */
double tp_store_write(const ThroughputRun& run, const std::string& xml,
                      const std::string& simulation, const std::vector<double>& data, bool fsync);

/** Clean slate between measurements: no files, no dirty pages. Collective over world. */
void reset(const std::string& dir);

/** Sets an environment variable for the scope's lifetime (before ecluse_initialize: the
 * library reads it there), then restores what was there. */
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_, previous_;
  bool had_ = false;
};

/** One step of the writer's path, measured in the same run: its name, what it changes, and
 * its throughput against the raw write (from the median times, and from the best ones, which
 * other work on the machine disturbs less). */
struct Step {
  const char* name;
  const char* change;
  double ratio;
  double ratio_of_best;
};

}  // namespace ecluse::bench
