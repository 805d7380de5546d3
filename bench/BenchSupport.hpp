// Helpers shared by the benchmarks: clocks, order statistics, the library's JSON writer, the
// configuration text, and MPI waits that sleep (on 2 cores an idle rank must not take a core).
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "report/Json.hpp"

namespace ecluse::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

/** Wall seconds of f(). */
template <class F>
double timed(F&& f) {
  const auto t0 = Clock::now();
  f();
  return seconds_between(t0, Clock::now());
}

/** Percentile p in [0, 100] with linear interpolation between order statistics. */
double percentile(std::vector<double> samples, double p);
inline double median(std::vector<double> samples) {
  return percentile(std::move(samples), 50);
}
double mean(const std::vector<double>& samples);
double maximum(const std::vector<double>& samples);

/** The library's JSON writer (src/report/Json.hpp): one writer for the report and the benchmarks.
 */
using Json = ecluse::Json;

/** p50, p90, p99, max, mean and count of samples given in seconds, reported in `unit`. */
Json summary(const std::vector<double>& seconds, double unit_per_second);

/** Command-line options "--key value" and flags "--key". */
class Args {
 public:
  Args(int argc, char** argv);
  [[nodiscard]] std::string get(const std::string& key, const std::string& fallback) const;
  [[nodiscard]] double number(const std::string& key, double fallback) const;
  [[nodiscard]] bool flag(const std::string& key) const;

 private:
  std::map<std::string, std::string> values_;
};

/** What one benchmark configuration contains: double variables of given byte sizes, one store. */
struct ConfigSpec {
  std::string simulation = "bench";
  int dedicated_cores = 1;
  int ranks_per_node = 2;
  std::uint64_t buffer_bytes = 64ull << 20;
  std::string store_type = "null";  // or "HDF5"
  std::string files_path;           // HDF5 only
  std::string file_mode = "FilePerCore";
  std::vector<std::pair<std::string, std::uint64_t>> variables;
  std::vector<std::string> events;  // bound with ecluse_bind before start
  std::string log_file;
};
std::string make_config(const ConfigSpec& spec);

/** Buffer bytes an allocation of `bytes` takes (payload plus the allocator's block header). */
std::uint64_t footprint(std::uint64_t bytes);

/** Exits the whole job with a message if an Ecluse call failed. */
void check(int status, const char* what);
/** Exits the whole job with a message. */
[[noreturn]] void fail(const std::string& message);

/** A barrier during which this rank sleeps instead of spinning (the other core stays free). */
void sleepy_barrier(MPI_Comm comm);
/** Sends `text` from `from` (a rank of MPI_COMM_WORLD) to rank 0, which prints it on stdout. */
void print_on_rank0(const std::string& text, int from);

/** Pages touched, content not constant, so that no layer takes a shortcut on zero pages. */
void fill_pattern(void* data, std::size_t bytes, unsigned seed);
/** What a simulation's compute phase does last: writes its output field (n doubles) at `dst`,
 * values depending on the iteration (--produce of approach_compare and adios2_compare: the
 * field is produced where it will be output, in the shared buffer with zero copy). */
void produce_field(double* dst, std::size_t n, int iteration);
std::string size_name(std::uint64_t bytes);

/** CPU-bound work of a fixed amount (not a fixed time): interference makes it last longer. */
class Work {
 public:
  /** Units of work that take `seconds` on this core now (best of a few trials). */
  static std::uint64_t calibrate(double seconds);
  static void run(std::uint64_t units);
};

/** Minor page faults of this process so far. */
long minor_faults();

/** Opens `path` and fsyncs it; returns false if it cannot. */
bool fsync_path(const std::string& path);
/** syncfs on the file system of `directory`, so that a measurement starts without dirty pages. */
void sync_directory(const std::string& directory);
/** Removes every regular file directly under `directory`. */
void remove_files(const std::string& directory);

/** The file an HDF5 FilePerCore store writes: <files_path>/<simulation>_It<i>_Pr<writer>.h5. */
std::string stored_file(const std::string& files_path, const std::string& simulation, int iteration,
                        int writer);
/** Binds event "sync" (declared with ConfigSpec::events) to an action that fsyncs the file the
 * dedicated core (writer 0) stored for the iteration before the signal. Call on every rank
 * before ecluse_start: the action runs on the server, after it stored that iteration. */
void bind_server_fsync(const std::string& files_path, const std::string& simulation);
/** fsyncs that failed in this process's "sync" actions. */
int server_fsync_failures();

/** How much CPU other processes (and kernel threads, writeback included) used while a benchmark
 * ran: the machine's busy time from /proc/stat minus this job's own CPU time. A benchmark that
 * shares its cores with someone else's build measures that build too; this makes it visible. */
class Interference {
 public:
  Interference();
  /** Collective over `comm` (every rank of the job). */
  [[nodiscard]] Json report(MPI_Comm comm) const;

 private:
  static double machine_busy_seconds(double* steal);
  static double own_cpu_seconds();
  Clock::time_point start_;
  double busy_ = 0;
  double steal_ = 0;
  double own_ = 0;
};

/** Build type and compiler, for the record. */
Json build_info();

}  // namespace ecluse::bench
