// Throughput of a dedicated node server storing a client's output (HDF5 FilePerCore), divided by
// a raw write() of the same files in the same run: page cache against page cache, fsync against
// fsync. 2 ranks on virtual nodes of 1 rank: 1 client node + 1 dedicated node (mirrors
// dc_throughput).

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ApproachSupport.hpp"
#include "BenchSupport.hpp"
#include "Throughput.hpp"
#include "ecluse/ecluse.h"

namespace {

using namespace ecluse::bench;

constexpr double kGoal = 0.9;  // Ecluse DN throughput / raw throughput
constexpr const char* kSimulation = "dntput";

struct Options {
  std::string dir;
  std::uint64_t bytes = 32ull << 20;  // per iteration (one file)
  int iterations = 16;
  int reps = 3;
  int fsync_reps = 3;
  std::uint64_t chunk = 8ull << 20;
  int buffer_iterations = 3;
  std::vector<bool> fsync_modes{false, true};
  std::string copy;  // --buffer-copy: <buffer copy> of the client (empty: the default)
};

ThroughputRun run_of(const Options& o) {
  return {o.dir, o.bytes, o.chunk, o.iterations};
}

/** How the DN server makes the files durable in fsync mode. */
enum class Durability {
  None,    // page cache
  Action,  // the client signals "sync" after each iteration; the server's action fsyncs
  Store,   // the store's option Sync="yes": the store thread fsyncs before publishing
};

std::string config(const Options& o, Approach approach, Durability durability) {
  ApproachSpec spec;
  spec.approach = approach;
  spec.simulation = kSimulation;
  spec.ranks = 2;
  spec.ranks_per_node = 1;
  spec.buffer_bytes = static_cast<std::uint64_t>(o.buffer_iterations) * o.bytes;
  spec.files_path = o.dir;
  spec.bytes = o.bytes;
  if (durability == Durability::Action) spec.events = {"sync"};
  spec.sync = durability == Durability::Store;
  spec.copy = o.copy;
  spec.log_file = o.dir + "/log";
  return approach_config(spec);
}

/** One DN measurement: end to end on the client, the server's view on the server. */
struct DnTimes {
  double end_to_end = 0;      // client's first write until every rank is past finalize
  double server_seconds = 0;  // the server's wall time in ecluse_start
  double received_bytes = 0;  // dn.received_bytes of the server
};

/** The client writes every iteration back to back; the server stores (and fsyncs each file, in
 * the "sync" action or in the store) inside ecluse_start. Set-up is not counted. */
DnTimes ecluse_dn_write(const Options& o, const std::vector<double>& data, Durability durability) {
  const bool signal = durability == Durability::Action;
  check(ecluse_initialize_string(config(o, Approach::DN, durability).c_str(), MPI_COMM_WORLD),
        "initialize");
  if (signal) bind_server_fsync(o.dir, kSimulation);
  DnTimes t;
  int is_client = 0;
  const auto t_server = Clock::now();
  check(ecluse_start(&is_client), "ecluse_start");
  const auto t0 = Clock::now();
  if (is_client) {
    for (int it = 0; it < o.iterations; ++it) {
      check(ecluse_write("field", data.data()), "ecluse_write");
      check(ecluse_end_iteration(), "ecluse_end_iteration");
      if (signal) check(ecluse_signal("sync"), "ecluse_signal(sync)");
    }
    check(ecluse_stop(), "ecluse_stop");
  } else {
    t.server_seconds = seconds_between(t_server, t0);
    t.received_bytes = read_counters({"dn.received_bytes"}).front();
  }
  check(ecluse_finalize(), "ecluse_finalize");
  sleepy_barrier(MPI_COMM_WORLD);
  if (is_client) t.end_to_end = seconds_between(t0, Clock::now());
  double v[3] = {t.end_to_end, t.server_seconds, t.received_bytes};
  MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return {v[0], v[1], v[2]};
}

/** Seconds of each series over the reps of one durability mode. */
struct Series {
  std::vector<double> raw, dn_end_to_end, dn_server, tp;
  std::vector<double> dn_no_store_thread;    // end to end, main's server (the steps' "before")
  std::vector<double> raw_pipelined;         // raw with the fsyncs on a second thread
  std::vector<double> dn_store_sync;         // fsync mode: Sync="yes" instead of the action
  std::vector<double> dn_store_sync_server;  // its server's wall time in ecluse_start
  std::vector<double> dn_huge_pages;         // the headline with ECLUSE_HUGE_PAGES=1
  double received_bytes = 0;
};

Json list(const std::vector<double>& values) {
  Json j = Json::array();
  for (double v : values) j.push_back(v);
  return j;
}

Series measure(const Options& o, const std::vector<double>& data, bool fsync) {
  Series s;
  const int reps = fsync ? o.fsync_reps : o.reps;
  // The store's Sync only means something with fsync; the last kind is the headline with DN
  // message memory on huge pages (ECLUSE_HUGE_PAGES=1).
  const int kinds = fsync ? 7 : 6;
  const Durability durability = fsync ? Durability::Action : Durability::None;
  for (int rep = 0; rep < reps; ++rep) {
    for (int k = 0; k < kinds; ++k) {
      const int which = (k + rep) % kinds;  // the order rotates from rep to rep
      reset(o.dir);
      if (which == 0) s.raw.push_back(raw_write(run_of(o), data, fsync));
      if (which == 4)
        s.raw_pipelined.push_back(raw_write(run_of(o), data, fsync, RawKind::Pipelined));
      if (which == 3) {
        const ScopedEnv before("ECLUSE_STORE_THREAD", "0");  // main's path: one thread
        s.dn_no_store_thread.push_back(ecluse_dn_write(o, data, durability).end_to_end);
      }
      if (which == kinds - 1) {
        const ScopedEnv huge("ECLUSE_HUGE_PAGES", "1");  // message memory on huge pages
        s.dn_huge_pages.push_back(
            ecluse_dn_write(o, data, fsync ? Durability::Store : durability).end_to_end);
      }
      if (which == 5 && fsync) {
        const DnTimes t = ecluse_dn_write(o, data, Durability::Store);
        s.dn_store_sync.push_back(t.end_to_end);
        s.dn_store_sync_server.push_back(t.server_seconds);
      }
      if (which == 2)
        s.tp.push_back(tp_store_write(run_of(o), config(o, Approach::TP, Durability::None),
                                      kSimulation, data, fsync));
      if (which != 1) continue;
      const DnTimes t = ecluse_dn_write(o, data, durability);
      s.dn_end_to_end.push_back(t.end_to_end);
      s.dn_server.push_back(t.server_seconds);
      s.received_bytes = t.received_bytes;
    }
  }
  reset(o.dir);
  return s;
}

Json run_mode(const Options& o, const std::vector<double>& data, bool fsync, bool* pass) {
  const Series s = measure(o, data, fsync);
  const double total = static_cast<double>(o.bytes) * o.iterations;
  auto gbps = [&](const std::vector<double>& t) { return total / median(t) * 1e-9; };
  auto best = [&](const std::vector<double>& t) {
    return total / *std::min_element(t.begin(), t.end()) * 1e-9;
  };
  const double raw = gbps(s.raw), e2e = gbps(s.dn_end_to_end);
  const double before = gbps(s.dn_no_store_thread);
  // The headline is what a user who wants durable files configures: the store's Sync option
  // (fsync mode); the action that fsyncs is a step before it.
  const std::vector<double>& end_to_end = fsync ? s.dn_store_sync : s.dn_end_to_end;
  const std::vector<double>& in_start = fsync ? s.dn_store_sync_server : s.dn_server;
  const double headline = gbps(end_to_end);
  const double server = s.received_bytes / median(in_start) * 1e-9;
  *pass = *pass && headline / raw >= kGoal;
  Json steps = Json::array();
  steps.push_back(Json::object()
                      .set("name", "before")
                      .set("change",
                           "main: the dedicated node stores each iteration on its own thread and "
                           "receives nothing meanwhile (ECLUSE_STORE_THREAD=0)")
                      .set("ratio", before / raw)
                      .set("ratio_of_best", best(s.dn_no_store_thread) / best(s.raw)));
  steps.push_back(Json::object()
                      .set("name", "store_thread")
                      .set("change",
                           "the server's store thread writes iteration i while its thread "
                           "receives iteration i+1 and runs the actions (fsync of i)")
                      .set("ratio", e2e / raw)
                      .set("ratio_of_best", best(s.dn_end_to_end) / best(s.raw)));
  if (fsync) {
    steps.push_back(Json::object()
                        .set("name", "store_sync")
                        .set("change",
                             "the store's option Sync=\"yes\" instead of the action: the store "
                             "thread writes file i+1 while a completion thread fsyncs and "
                             "renames file i and the server's thread receives i+2")
                        .set("ratio", headline / raw)
                        .set("ratio_of_best", best(s.dn_store_sync) / best(s.raw)));
  }
  return Json::object()
      .set("durability", fsync ? "fsync of every file once complete (DN headline: the store's "
                                 "Sync=\"yes\", before the rename; steps: by the server in an "
                                 "event action; TP and raw: by the writer)"
                               : "page cache (no fsync anywhere)")
      .set("ratio", headline / raw)
      .set("server_ratio", server / raw)
      .set("pass", headline / raw >= kGoal)
      .set("GBps", Json::object()
                       .set("raw", raw)
                       .set("ecluse_dn_headline", headline)
                       .set("ecluse_dn_end_to_end", e2e)
                       .set("ecluse_dn_server", server)
                       .set("ecluse_tp", gbps(s.tp))
                       .set("ecluse_dn_no_store_thread", before)
                       .set("raw_pipelined", gbps(s.raw_pipelined)))
      .set("ecluse_dn_over_ecluse_tp", headline / gbps(s.tp))
      .set("huge_pages_effect",
           Json::object()
               .set("change",
                    "ECLUSE_HUGE_PAGES=1: DN message memory (client's outgoing, server's "
                    "receive) of 2 MiB and more mapped 2 MiB-aligned with MADV_HUGEPAGE instead "
                    "of new[] (off by default)")
               .set("ratio_with", gbps(s.dn_huge_pages) / raw)
               .set("ratio_without", headline / raw)
               .set("with_over_without", gbps(s.dn_huge_pages) / headline))
      .set("steps", std::move(steps))
      .set("ecluse_dn_over_no_store_thread", headline / before)
      .set("ecluse_dn_over_raw_pipelined", headline / gbps(s.raw_pipelined))
      .set("received_bytes", s.received_bytes)
      .set("seconds", Json::object()
                          .set("raw", list(s.raw))
                          .set("ecluse_dn_end_to_end", list(s.dn_end_to_end))
                          .set("ecluse_dn_server_in_start", list(s.dn_server))
                          .set("ecluse_tp", list(s.tp))
                          .set("ecluse_dn_no_store_thread", list(s.dn_no_store_thread))
                          .set("ecluse_dn_store_sync", list(s.dn_store_sync))
                          .set("ecluse_dn_huge_pages", list(s.dn_huge_pages))
                          .set("raw_pipelined", list(s.raw_pipelined)));
}

Options parse(const Args& args) {
  Options o;
  o.dir = args.get("dir", "");
  if (o.dir.empty()) fail("--dir DIRECTORY is required");
  o.bytes = static_cast<std::uint64_t>(args.number("mib", 32) * 1048576.0) / 8 * 8;
  o.iterations = static_cast<int>(args.number("iterations", 16));
  o.reps = static_cast<int>(args.number("reps", 3));
  o.fsync_reps = static_cast<int>(args.number("fsync-reps", 3));
  o.chunk = static_cast<std::uint64_t>(args.number("chunk-mib", 8) * 1048576.0);
  o.copy = args.get("buffer-copy", "");
  const std::string modes = args.get("durability", "page_cache,fsync");
  o.fsync_modes.clear();
  if (modes.find("page_cache") != std::string::npos) o.fsync_modes.push_back(false);
  if (modes.find("fsync") != std::string::npos) o.fsync_modes.push_back(true);
  return o;
}

Json setup(const Options& o) {
  return Json::object()
      .set("ranks", 2)
      .set("roles",
           "ecluse_dn: 1 client node + 1 dedicated node (virtual nodes of 1 rank, HDF5 "
           "FilePerCore); raw, ecluse_tp: rank 0 writes, rank 1 sleeps")
      .set("files", std::to_string(o.iterations) + " files of " + size_name(o.bytes) +
                        " (one per iteration)")
      .set("receive_memory", std::to_string(o.buffer_iterations) + " iterations")
      .set("raw", "write() in " + size_name(o.chunk) + " chunks")
      .set("ecluse_dn_end_to_end",
           "client's first write until every rank is past "
           "ecluse_finalize (server done); set-up excluded; fsync mode: the server fsyncs in "
           "an action the client signals after each iteration")
      .set("ecluse_dn_store_sync",
           "fsync mode only: the same with the store's option Sync=\"yes\" (the store thread "
           "fsyncs each file before renaming it) and no action; the headline of fsync mode")
      .set("ecluse_dn_huge_pages",
           "the headline (page cache: ecluse_dn_end_to_end; fsync: ecluse_dn_store_sync) with "
           "ECLUSE_HUGE_PAGES=1: DN message memory of 2 MiB and more on transparent huge pages "
           "(huge_pages_effect)")
      .set("raw_pipelined",
           "raw with each file's fsync on a second thread while the next file is written "
           "(the overlap the store thread gives the server)")
      .set("ecluse_dn_no_store_thread",
           "ecluse_dn with ECLUSE_STORE_THREAD=0: main's server, which stores on its own "
           "thread and receives nothing meanwhile (the 'before' of steps)")
      .set("ecluse_dn_server",
           "dn.received_bytes / the server's wall time in ecluse_start "
           "(includes its wait for the first block)")
      .set("reps", Json::object().set("page_cache", o.reps).set("fsync", o.fsync_reps))
      .set("between_measurements", "files removed and syncfs")
      .set("statistic",
           "ratio = DN end-to-end throughput (fsync mode: ecluse_dn_store_sync) / raw "
           "throughput, each from the median time; server_ratio the same with the server's own "
           "time")
      .set("build", build_info());
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int ranks = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (ranks != 2) fail("dn_throughput runs on 2 ranks (1 client node + 1 dedicated node)");
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
  Json out = Json::object()
                 .set("benchmark", "dn_throughput")
                 .set("setup", setup(o))
                 .set("goal", Json::object().set("ratio_min", kGoal))
                 .set("modes", std::move(modes))
                 .set("pass", pass);
  print_on_rank0(out.dump(), 0);
  MPI_Finalize();
  return 0;
}
