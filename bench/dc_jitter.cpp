// Jitter: per-iteration client-visible output time (write + end_iteration) of a simulation that
// computes, then outputs, for dedicated cores (--mode dc, 2 ranks) or time partitioning (--mode
// tp, 1 or 2 ranks). One mode per mpiexec; bench/run.sh runs them side by side.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "BenchSupport.hpp"
#include "ecluse/ecluse.h"

namespace {

using namespace ecluse::bench;

constexpr double kMs = 1e3;
constexpr const char* kSimulation = "jitter";

struct Options {
  std::string mode;  // "dc" or "tp"
  std::string dir;
  int iterations = 60;
  double compute_ms = 20;
  std::uint64_t bytes = 32ull << 20;
  int buffer_iterations = 3;
  bool fsync = false;
};

/** Per-iteration samples of one client, in seconds. */
struct Trace {
  std::vector<double> compute, output;
  std::vector<double> faults;  // minor page faults of the client during each output
  double loop = 0;
};

std::string config(const Options& o) {
  ConfigSpec spec;
  spec.simulation = kSimulation;
  spec.dedicated_cores = o.mode == "dc" ? 1 : 0;
  spec.buffer_bytes = static_cast<std::uint64_t>(o.buffer_iterations) * footprint(o.bytes) + 4096;
  spec.store_type = "HDF5";
  spec.files_path = o.dir;
  spec.variables = {{"field", o.bytes}};
  if (o.mode == "dc" && o.fsync) spec.events = {"sync"};
  spec.log_file = o.dir + "/log";
  return make_config(spec);
}

/** Client-visible output of one iteration: write, end_iteration, and with --fsync either the
 * client's own fsync (TP: inside the measured time) or a signal to the server (DC). */
void output(const Options& o, const std::vector<double>& field, int source) {
  int iteration = 0;
  check(ecluse_get_iteration(&iteration), "ecluse_get_iteration");
  check(ecluse_write("field", field.data()), "ecluse_write");
  check(ecluse_end_iteration(), "ecluse_end_iteration");
  if (!o.fsync) return;
  if (o.mode == "dc") {
    check(ecluse_signal("sync"), "ecluse_signal(sync)");
  } else if (!fsync_path(stored_file(o.dir, kSimulation, iteration, source))) {
    fail("cannot fsync " + stored_file(o.dir, kSimulation, iteration, source));
  }
}

Trace run_client(const Options& o, std::uint64_t work) {
  MPI_Comm comm;
  check(ecluse_client_comm_get(&comm), "ecluse_client_comm_get");
  int source = 0;
  MPI_Comm_rank(comm, &source);
  std::vector<double> field(o.bytes / sizeof(double));
  fill_pattern(field.data(), o.bytes, static_cast<unsigned>(source));
  Trace trace;
  const auto start = Clock::now();
  for (int it = 0; it < o.iterations; ++it) {
    const auto t0 = Clock::now();
    Work::run(work);
    const long faults = minor_faults();
    const auto t1 = Clock::now();
    output(o, field, source);
    const auto t2 = Clock::now();
    trace.faults.push_back(static_cast<double>(minor_faults() - faults));
    trace.compute.push_back(seconds_between(t0, t1));
    trace.output.push_back(seconds_between(t1, t2));
  }
  trace.loop = seconds_between(start, Clock::now());
  return trace;
}

/** Every rank's trace on rank 0 (servers send empty ones). */
std::vector<Trace> gather(const Trace& mine, int iterations) {
  int size = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<double> flat(static_cast<std::size_t>(3 * iterations + 2), 0.0);
  flat[0] = mine.compute.empty() ? 0 : 1;
  flat[1] = mine.loop;
  std::copy(mine.compute.begin(), mine.compute.end(), flat.begin() + 2);
  std::copy(mine.output.begin(), mine.output.end(), flat.begin() + 2 + iterations);
  std::copy(mine.faults.begin(), mine.faults.end(), flat.begin() + 2 + 2 * iterations);
  std::vector<double> all(rank == 0 ? flat.size() * static_cast<std::size_t>(size) : 0);
  MPI_Gather(flat.data(), static_cast<int>(flat.size()), MPI_DOUBLE, all.data(),
             static_cast<int>(flat.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  std::vector<Trace> traces;
  for (int r = 0; rank == 0 && r < size; ++r) {
    const double* f = all.data() + static_cast<std::size_t>(r) * flat.size();
    if (f[0] == 0) continue;
    traces.push_back({{f + 2, f + 2 + iterations},
                      {f + 2 + iterations, f + 2 + 2 * iterations},
                      {f + 2 + 2 * iterations, f + 2 + 3 * iterations},
                      f[1]});
  }
  return traces;
}

/** What a bulk-synchronous simulation waits for: the slowest client of each iteration. */
std::vector<double> slowest(const std::vector<Trace>& traces, bool output) {
  std::vector<double> worst(traces.front().output.size(), 0.0);
  for (const Trace& t : traces) {
    const auto& v = output ? t.output : t.compute;
    for (std::size_t i = 0; i < v.size(); ++i) worst[i] = std::max(worst[i], v[i]);
  }
  return worst;
}

Json output_stats(const std::vector<double>& samples) {
  const double p50 = percentile(samples, 50);
  std::vector<double> after_first(samples.begin() + 1, samples.end());
  return summary(samples, kMs)
      .set("first", samples.front() * kMs)
      .set("p99_over_p50", percentile(samples, 99) / p50)
      .set("max_over_p50", maximum(samples) / p50)
      .set("p99_after_first", percentile(after_first, 99) * kMs)
      .set("p99_after_first_over_p50", percentile(after_first, 99) / p50);
}

/** Minor page faults of the clients during their outputs: the first output touches the
 * buffer's fresh pages, the later ones should not fault. */
Json fault_stats(const std::vector<Trace>& traces) {
  std::vector<double> later;
  double first = 0;
  for (const Trace& t : traces) {
    first = std::max(first, t.faults.front());
    later.insert(later.end(), t.faults.begin() + 1, t.faults.end());
  }
  Json series = Json::array();
  for (std::size_t i = 0; i < traces.front().faults.size(); ++i) {
    double most = 0;
    for (const Trace& t : traces) most = std::max(most, t.faults[i]);
    series.push_back(most);
  }
  return Json::object()
      .set("series", std::move(series))
      .set("first", first)
      .set("after_first_median", percentile(later, 50))
      .set("after_first_max", maximum(later));
}

Json series_ms(const std::vector<double>& samples) {
  Json list = Json::array();
  for (double s : samples) list.push_back(std::round(s * kMs * 100) / 100);
  return list;
}

Json report(const Options& o, const std::vector<Trace>& traces, double drain, std::uint64_t work,
            int ranks) {
  const int clients = static_cast<int>(traces.size());
  const std::vector<double> out = slowest(traces, true);
  double loop = 0;
  for (const Trace& t : traces) loop = std::max(loop, t.loop);
  std::string label = o.mode == "dc" ? "DC: 1 client + 1 dedicated core"
                                     : "TP: " + std::to_string(clients) + " client(s)";
  return Json::object()
      .set("benchmark", "dc_jitter")
      .set("label", label)
      .set("mode", o.mode)
      .set("ranks", ranks)
      .set("clients", clients)
      .set("iterations", o.iterations)
      .set("bytes_per_client", o.bytes)
      .set("compute_ms_target", o.compute_ms)
      .set("work_units", work)
      .set("store", "HDF5 FilePerCore")
      .set("durability", o.fsync ? (o.mode == "dc" ? "fsync of every file by the server "
                                                     "(event action), outside the client's time"
                                                   : "fsync of every file by the client, "
                                                     "inside the measured output time")
                                 : "page cache only (no fsync)")
      .set("buffer",
           o.mode == "dc" ? Json(std::to_string(o.buffer_iterations) + " iterations") : Json())
      .set("output_ms", output_stats(out))
      .set("output_ms_series", series_ms(out))
      .set("output_minor_faults", fault_stats(traces))
      .set("compute_ms", summary(slowest(traces, false), kMs))
      .set("loop_s", loop)
      .set("drain_after_loop_s", drain)
      .set("statistic",
           "per iteration, the slowest client (what a bulk-synchronous simulation "
           "waits for); output = write + end_iteration (+ fsync with TP --fsync)")
      .set("build", build_info());
}

Options parse(const Args& args) {
  Options o;
  o.mode = args.get("mode", "dc");
  if (o.mode != "dc" && o.mode != "tp") fail("--mode is dc or tp");
  o.dir = args.get("dir", "");
  if (o.dir.empty()) fail("--dir DIRECTORY is required");
  o.iterations = static_cast<int>(args.number("iterations", 60));
  o.compute_ms = args.number("compute-ms", 20);
  o.bytes = static_cast<std::uint64_t>(args.number("mib", 32) * 1048576.0) / 8 * 8;
  o.buffer_iterations = static_cast<int>(args.number("buffer-iterations", 3));
  o.fsync = args.flag("fsync");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int ranks = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const Options o = parse(Args(argc, argv));
  if (o.mode == "dc" && ranks != 2) fail("--mode dc runs on 2 ranks (1 client + 1 server)");
  std::uint64_t work = Work::calibrate(o.compute_ms / kMs);
  MPI_Bcast(&work, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  const Interference interference;
  check(ecluse_initialize_string(config(o).c_str(), MPI_COMM_WORLD), "ecluse_initialize_string");
  if (o.mode == "dc" && o.fsync) bind_server_fsync(o.dir, kSimulation);
  int is_client = 0;
  check(ecluse_start(&is_client), "ecluse_start");
  Trace mine;
  if (is_client) {
    mine = run_client(o, work);
    check(ecluse_stop(), "ecluse_stop");
  }
  const auto stopped = Clock::now();
  check(ecluse_finalize(), "ecluse_finalize");
  sleepy_barrier(MPI_COMM_WORLD);  // the server has stored everything
  const double drain = is_client ? seconds_between(stopped, Clock::now()) : 0;
  double worst_drain = drain;
  MPI_Reduce(&drain, &worst_drain, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  const std::vector<Trace> traces = gather(mine, o.iterations);
  int failures = server_fsync_failures();
  MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (failures > 0) fail(std::to_string(failures) + " server-side fsync(s) failed");
  Json load = interference.report(MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    print_on_rank0(report(o, traces, worst_drain, work, ranks).set("interference", load).dump(), 0);
  }
  MPI_Finalize();
  return 0;
}
