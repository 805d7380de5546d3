// Throughput of a dedicated core storing a client's output (HDF5 FilePerCore), end to end,
// divided by a raw sequential write (write() in 8 MiB chunks) of the same files in the same
// directory, in the same run: page cache against page cache, fsync against fsync. 2 ranks.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "BenchSupport.hpp"
#include "Throughput.hpp"
#include "ecluse/ecluse.h"

namespace {

using namespace ecluse::bench;

constexpr double kGoal = 0.9;  // Ecluse throughput / raw throughput
constexpr const char* kSimulation = "tput";

struct Options {
  std::string dir;
  std::uint64_t bytes = 32ull << 20;  // per iteration (one file)
  int iterations = 32;
  int reps = 5;        // page cache: noisy, cheap
  int fsync_reps = 3;  // fsync: steadier, slow
  std::uint64_t chunk = 8ull << 20;
  int buffer_iterations = 3;
  std::vector<bool> fsync_modes{false, true};
};

ThroughputRun run_of(const Options& o) {
  return {o.dir, o.bytes, o.chunk, o.iterations};
}

std::string config(const Options& o, bool fsync, bool dedicated) {
  ConfigSpec spec;
  spec.dedicated_cores = dedicated ? 1 : 0;
  spec.simulation = kSimulation;
  spec.buffer_bytes = static_cast<std::uint64_t>(o.buffer_iterations) * footprint(o.bytes) + 4096;
  spec.store_type = "HDF5";
  spec.files_path = o.dir;
  spec.variables = {{"field", o.bytes}};
  if (fsync) spec.events = {"sync"};
  spec.log_file = o.dir + "/log";
  return make_config(spec);
}

/** The client writes every iteration back to back; the time runs from its first write until
 * every rank is past finalize (the server has stored, and fsynced, everything). Set-up (the
 * shared buffer) is not counted. Returns the time on the client, 0 elsewhere. */
double ecluse_dc_write(const Options& o, const std::vector<double>& data, bool fsync) {
  check(ecluse_initialize_string(config(o, fsync, true).c_str(), MPI_COMM_WORLD), "initialize");
  if (fsync) bind_server_fsync(o.dir, kSimulation);
  int is_client = 0;
  check(ecluse_start(&is_client), "ecluse_start");
  const auto t0 = Clock::now();
  if (is_client) {
    for (int it = 0; it < o.iterations; ++it) {
      check(ecluse_write("field", data.data()), "ecluse_write");
      check(ecluse_end_iteration(), "ecluse_end_iteration");
      if (fsync) check(ecluse_signal("sync"), "ecluse_signal(sync)");
    }
    check(ecluse_stop(), "ecluse_stop");
  }
  check(ecluse_finalize(), "ecluse_finalize");
  sleepy_barrier(MPI_COMM_WORLD);
  double t = is_client ? seconds_between(t0, Clock::now()) : 0;
  MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return t;
}

/** Times of each series of one durability mode. */
struct Series {
  const char* name;
  std::vector<double> seconds;
  std::vector<double> faults;  // minor page faults of both ranks, set-up included
};

/** Minor page faults of every rank since `before` (this rank's count then). */
double faults_since(long before) {
  double faults = static_cast<double>(minor_faults() - before);
  MPI_Allreduce(MPI_IN_PLACE, &faults, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return faults;
}

/** [{"name", "change", "ratio", "ratio_of_best"}] in the order of the steps. */
Json steps_json(const std::vector<Step>& steps) {
  Json list = Json::array();
  for (const Step& step : steps) {
    list.push_back(Json::object()
                       .set("name", step.name)
                       .set("change", step.change)
                       .set("ratio", step.ratio)
                       .set("ratio_of_best", step.ratio_of_best));
  }
  return list;
}

double best_rate(const Series& s, double total) {
  return total / *std::min_element(s.seconds.begin(), s.seconds.end()) * 1e-9;
}

/** Every series of one durability mode, in an order that rotates from rep to rep. */
Json run_mode(const Options& o, const std::vector<double>& data, bool fsync, bool* pass) {
  std::vector<Series> series{{"raw", {}, {}},
                             {"ecluse_dc", {}, {}},
                             {"raw_like_store", {}, {}},
                             {"ecluse_tp", {}, {}},
                             {"ecluse_dc_no_store_thread", {}, {}},
                             {"raw_pipelined", {}, {}}};
  const int reps = fsync ? o.fsync_reps : o.reps;
  for (int rep = 0; rep < reps; ++rep) {
    for (std::size_t k = 0; k < series.size(); ++k) {
      const std::size_t which = (k + static_cast<std::size_t>(rep)) % series.size();
      reset(o.dir);
      const long faults = minor_faults();
      double t = 0;
      if (which == 0) t = raw_write(run_of(o), data, fsync, RawKind::Plain);
      if (which == 1) t = ecluse_dc_write(o, data, fsync);
      if (which == 2) t = raw_write(run_of(o), data, fsync, RawKind::LikeStore);
      if (which == 3)
        t = tp_store_write(run_of(o), config(o, false, false), kSimulation, data, fsync);
      if (which == 5) t = raw_write(run_of(o), data, fsync, RawKind::Pipelined);
      if (which == 4) {
        const ScopedEnv before("ECLUSE_STORE_THREAD", "0");  // main's path: one thread
        t = ecluse_dc_write(o, data, fsync);
      }
      series[which].seconds.push_back(t);
      series[which].faults.push_back(faults_since(faults));
    }
  }
  reset(o.dir);
  const double total = static_cast<double>(o.bytes) * o.iterations;
  auto rate = [&](const Series& s) { return total / median(s.seconds) * 1e-9; };
  const double ratio = rate(series[1]) / rate(series[0]);
  *pass = *pass && ratio >= kGoal;
  Json seconds = Json::object(), gbps = Json::object(), best = Json::object();
  Json faults = Json::object();
  for (const Series& s : series) {
    Json list = Json::array();
    for (double t : s.seconds) list.push_back(t);
    seconds.set(s.name, std::move(list));
    gbps.set(s.name, rate(s));
    best.set(s.name, best_rate(s, total));
    faults.set(s.name, median(s.faults));
  }
  const double best_ratio = best_rate(series[1], total) / best_rate(series[0], total);
  const std::vector<Step> steps{
      {"before",
       "main: the dedicated core stores each iteration on its own thread, between "
       "receiving two iterations (ECLUSE_STORE_THREAD=0)",
       rate(series[4]) / rate(series[0]),
       best_rate(series[4], total) / best_rate(series[0], total)},
      {"store_thread",
       "the dedicated core's store thread writes iteration i while its thread "
       "takes in iteration i+1 and runs the actions (fsync of i) beside the write of i+1",
       ratio, best_ratio}};
  return Json::object()
      .set("durability", fsync ? "fsync of every file after it is complete (Ecluse DC: by the "
                                 "server in an event action; TP and raw: by the writer)"
                               : "page cache (no fsync anywhere)")
      .set("ratio", ratio)
      .set("pass", ratio >= kGoal)
      .set("GBps", std::move(gbps))
      .set("ratio_of_best", best_ratio)
      .set("best_GBps", std::move(best))
      .set("minor_faults_all_ranks", std::move(faults))
      .set("steps", steps_json(steps))
      .set("diagnostic_ratios",
           Json::object()
               .set("ecluse_dc_over_ecluse_tp", rate(series[1]) / rate(series[3]))
               .set("ecluse_tp_over_raw", rate(series[3]) / rate(series[0]))
               .set("raw_like_store_over_raw", rate(series[2]) / rate(series[0]))
               .set("ecluse_dc_over_no_store_thread", rate(series[1]) / rate(series[4]))
               .set("ecluse_dc_over_raw_pipelined", rate(series[1]) / rate(series[5])))
      .set("seconds", std::move(seconds));
}

Options parse(const Args& args) {
  Options o;
  o.dir = args.get("dir", "");
  if (o.dir.empty()) fail("--dir DIRECTORY is required");
  o.bytes = static_cast<std::uint64_t>(args.number("mib", 32) * 1048576.0) / 8 * 8;
  o.iterations = static_cast<int>(args.number("iterations", 32));
  o.reps = static_cast<int>(args.number("reps", 5));
  o.fsync_reps = static_cast<int>(args.number("fsync-reps", 3));
  o.chunk = static_cast<std::uint64_t>(args.number("chunk-mib", 8) * 1048576.0);
  const std::string modes = args.get("durability", "page_cache,fsync");
  o.fsync_modes.clear();
  if (modes.find("page_cache") != std::string::npos) o.fsync_modes.push_back(false);
  if (modes.find("fsync") != std::string::npos) o.fsync_modes.push_back(true);
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int ranks = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (ranks != 2) fail("dc_throughput runs on 2 ranks (1 client + 1 dedicated core)");
  const Options o = parse(Args(argc, argv));
  std::vector<double> data(o.bytes / sizeof(double));
  fill_pattern(data.data(), o.bytes, 7);
  bool pass = true;
  Json modes = Json::object();
  for (bool fsync : o.fsync_modes) {
    const Interference interference;
    Json mode = run_mode(o, data, fsync, &pass);
    mode.set("interference", interference.report(MPI_COMM_WORLD));
    modes.set(fsync ? "fsync" : "page_cache", std::move(mode));
  }
  int failures = server_fsync_failures();
  MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (failures > 0) fail(std::to_string(failures) + " server-side fsync(s) failed");
  Json out =
      Json::object()
          .set("benchmark", "dc_throughput")
          .set("setup",
               Json::object()
                   .set("ranks", 2)
                   .set("roles",
                        "ecluse_dc: 1 client + 1 dedicated core (HDF5 "
                        "FilePerCore); raw, raw_like_store, ecluse_tp: rank 0 "
                        "writes, rank 1 sleeps")
                   .set("files", std::to_string(o.iterations) + " files of " + size_name(o.bytes) +
                                     " (one per iteration)")
                   .set("raw", "write() in " + size_name(o.chunk) + " chunks")
                   .set("raw_like_store",
                        "raw plus the store's file handling: fallocate "
                        "(payload + 80 KiB), write, ftruncate, rename "
                        "from .part")
                   .set("ecluse_tp",
                        "the same HDF5 store in process (time "
                        "partitioning, 1 rank)")
                   .set("raw_pipelined",
                        "raw with each file's fsync on a second thread while the next file "
                        "is written (the overlap the store thread gives the servers)")
                   .set("ecluse_dc_no_store_thread",
                        "ecluse_dc with ECLUSE_STORE_THREAD=0: main's server, which stores on "
                        "its own thread (the 'before' of steps)")
                   .set("ecluse_time",
                        "client's first write until every rank is past "
                        "ecluse_finalize (server done); set-up excluded")
                   .set("reps", Json::object().set("page_cache", o.reps).set("fsync", o.fsync_reps))
                   .set("between_measurements", "files removed and syncfs")
                   .set("statistic",
                        "ratio = ecluse_dc throughput / raw throughput, "
                        "each from the median time; the order of the "
                        "series rotates from rep to rep")
                   .set("build", build_info()))
          .set("goal", Json::object().set("ratio_min", kGoal))
          .set("modes", std::move(modes))
          .set("pass", pass);
  print_on_rank0(out.dump(), 0);
  MPI_Finalize();
  return 0;
}
