// One workload under TP, DC or DN (--approach, one per mpiexec; bench/run.sh runs them side by
// side): per iteration a compute phase, a memcpy of the block (baseline), then its output.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ApproachSupport.hpp"
#include "BenchSupport.hpp"
#include "ecluse/ecluse.h"

namespace {

using namespace ecluse::bench;

constexpr double kMs = 1e3;
constexpr const char* kSimulation = "cmp";

struct Options {
  Approach approach = Approach::TP;
  std::string dir;
  std::uint64_t bytes = 16ull << 20;  // per client and iteration
  int iterations = 16;
  double compute_ms = 40;
  int buffer_iterations = 3;     // DC buffer, DN receive memory: iterations of all clients
  int ranks_per_node = 1;        // DN
  bool baseline_memcpy = true;   // --memcpy off: the output alone after the compute phase
  std::uint64_t work_units = 0;  // --work-units: the compute phase of another run; 0 calibrates
  bool produce = false;          // --produce: the compute phase ends writing the field
  bool zero_copy = false;        // --zero-copy: the field is produced in ecluse_alloc's room
  std::string buffer_copy;       // --buffer-copy auto|cached|streaming: <buffer copy>
  bool prefault = true;          // --prefault on|off: <buffer prefault>
};

/** What one rank measured; servers fill only the server fields. */
struct RankResult {
  int role = 0;  // 0 none, 1 client, 2 server
  double loop = 0, end_to_end = 0, server_start = 0;
  std::vector<double> compute, write, memcpy;
  std::vector<double> client_counters, server_counters;
};

int world_size() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

int clients_of(const Options& o, int ranks) {
  if (o.approach == Approach::DC) return ranks - 1;
  if (o.approach == Approach::DN) return ranks - o.ranks_per_node;
  return ranks;
}

std::uint64_t buffer_bytes(const Options& o, int ranks) {
  const auto iteration = static_cast<std::uint64_t>(clients_of(o, ranks)) * o.bytes;
  if (o.approach == Approach::DC) {  // the shared buffer's allocator adds a header per block
    return static_cast<std::uint64_t>(o.buffer_iterations * clients_of(o, ranks)) *
               footprint(o.bytes) +
           4096;
  }
  return static_cast<std::uint64_t>(o.buffer_iterations) * iteration;  // DN credits: payload
}

std::string config(const Options& o, int ranks) {
  ApproachSpec spec;
  spec.approach = o.approach;
  spec.simulation = kSimulation;
  spec.ranks = ranks;
  spec.ranks_per_node = o.ranks_per_node;
  spec.buffer_bytes = buffer_bytes(o, ranks);
  spec.files_path = o.dir;
  spec.bytes = o.bytes;
  spec.log_file = o.dir + "/log";
  spec.copy = o.buffer_copy;
  spec.prefault = o.prefault;
  return approach_config(spec);
}

/** The output and its baseline, in alternating order so that neither always finds the block
 * in cache after the other (without the baseline, `copy` is empty: the output alone). */
void output(RankResult* r, const std::vector<double>& field, std::vector<double>* copy, int it) {
  auto copy_block = [&] { std::memcpy(copy->data(), field.data(), field.size() * sizeof(double)); };
  auto write_block = [&] {
    check(ecluse_write("field", field.data()), "ecluse_write");
    check(ecluse_end_iteration(), "ecluse_end_iteration");
  };
  const bool baseline = !copy->empty();
  if (baseline && it % 2 == 0) r->memcpy.push_back(timed(copy_block));
  r->write.push_back(timed(write_block));
  if (baseline && it % 2 != 0) r->memcpy.push_back(timed(copy_block));
}

/** Zero copy: the field is produced straight in the room ecluse_alloc gives (allocated before
 * the compute phase, as a simulation computing into it would); the output is alloc + commit +
 * end_iteration. */
void zero_copy_iteration(const Options& o, std::uint64_t work, int it, RankResult* r) {
  void* room = nullptr;
  const double alloc = timed([&] { check(ecluse_alloc("field", &room), "ecluse_alloc"); });
  r->compute.push_back(timed([&] {
    Work::run(work);
    produce_field(static_cast<double*>(room), o.bytes / sizeof(double), it);
  }));
  r->write.push_back(alloc + timed([] {
                       check(ecluse_commit("field"), "ecluse_commit");
                       check(ecluse_end_iteration(), "ecluse_end_iteration");
                     }));
}

RankResult run_client(const Options& o, std::uint64_t work, Clock::time_point* loop_start) {
  MPI_Comm comm;
  check(ecluse_client_comm_get(&comm), "ecluse_client_comm_get");
  int source = 0;
  MPI_Comm_rank(comm, &source);
  std::vector<double> field(o.bytes / sizeof(double));
  std::vector<double> copy(o.baseline_memcpy ? field.size() : 0);
  fill_pattern(field.data(), o.bytes, static_cast<unsigned>(source));
  fill_pattern(copy.data(), copy.size() * sizeof(double), 99);  // touched: mapped pages
  RankResult r;
  r.role = 1;
  *loop_start = Clock::now();
  for (int it = 0; it < o.iterations; ++it) {
    if (o.zero_copy) {
      zero_copy_iteration(o, work, it, &r);
      continue;
    }
    r.compute.push_back(timed([&] {
      Work::run(work);
      if (o.produce) produce_field(field.data(), field.size(), it);
    }));
    output(&r, field, &copy, it);
  }
  r.loop = seconds_between(*loop_start, Clock::now());
  return r;
}

/** Every rank's result on rank 0, as fixed-size rows of doubles. */
std::vector<double> flatten(const RankResult& r, int iterations) {
  std::vector<double> row{static_cast<double>(r.role), r.loop, r.end_to_end, r.server_start};
  for (const auto* v : {&r.compute, &r.write, &r.memcpy}) {
    std::vector<double> padded(*v);
    padded.resize(static_cast<std::size_t>(iterations), 0.0);
    row.insert(row.end(), padded.begin(), padded.end());
  }
  std::vector<double> c(r.client_counters), s(r.server_counters);
  c.resize(dn_client_counters().size(), 0.0);
  s.resize(dn_server_counters().size(), 0.0);
  row.insert(row.end(), c.begin(), c.end());
  row.insert(row.end(), s.begin(), s.end());
  return row;
}

RankResult unflatten(const double* f, int iterations) {
  RankResult r;
  r.role = static_cast<int>(f[0]);
  r.loop = f[1];
  r.end_to_end = f[2];
  r.server_start = f[3];
  const auto n = static_cast<std::size_t>(iterations);
  f += 4;
  for (auto* v : {&r.compute, &r.write, &r.memcpy}) {
    v->assign(f, f + n);
    f += n;
  }
  r.client_counters.assign(f, f + dn_client_counters().size());
  f += dn_client_counters().size();
  r.server_counters.assign(f, f + dn_server_counters().size());
  return r;
}

std::vector<RankResult> gather(const RankResult& mine, int iterations) {
  const std::vector<double> row = flatten(mine, iterations);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<double> all(rank == 0 ? row.size() * static_cast<std::size_t>(world_size()) : 0);
  MPI_Gather(row.data(), static_cast<int>(row.size()), MPI_DOUBLE, all.data(),
             static_cast<int>(row.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  std::vector<RankResult> results;
  for (std::size_t at = 0; at < all.size(); at += row.size()) {
    results.push_back(unflatten(all.data() + at, iterations));
  }
  return results;
}

std::vector<const RankResult*> with_role(const std::vector<RankResult>& all, int role) {
  std::vector<const RankResult*> out;
  for (const auto& r : all) {
    if (r.role == role) out.push_back(&r);
  }
  return out;
}

/** Per iteration, the slowest client (what a bulk-synchronous simulation waits for). */
std::vector<double> slowest(const std::vector<const RankResult*>& clients,
                            std::vector<double> RankResult::*field) {
  std::vector<double> worst(((*clients.front()).*field).size(), 0.0);
  for (const RankResult* c : clients) {
    const auto& v = c->*field;
    for (std::size_t i = 0; i < v.size(); ++i) worst[i] = std::max(worst[i], v[i]);
  }
  return worst;
}

std::vector<double> pooled(const std::vector<const RankResult*>& clients,
                           std::vector<double> RankResult::*field) {
  std::vector<double> all;
  for (const RankResult* c : clients) all.insert(all.end(), (c->*field).begin(), (c->*field).end());
  return all;
}

Json series_ms(const std::vector<double>& samples) {
  Json list = Json::array();
  for (double s : samples) list.push_back(std::round(s * kMs * 100) / 100);
  return list;
}

/** Credit state summed (waits) or extreme (lowest credit) over clients, and the server's. */
Json dn_report(const std::vector<const RankResult*>& clients,
               const std::vector<const RankResult*>& servers) {
  double waits = 0, wait_s = 0, worst_wait_s = 0, lowest = 1e300, sent = 0, skipped = 0;
  for (const RankResult* c : clients) {
    waits += c->client_counters[3];
    wait_s += c->client_counters[4];
    worst_wait_s = std::max(worst_wait_s, c->client_counters[4]);
    lowest = std::min(lowest, c->client_counters[2]);
    sent += c->client_counters[6];
    skipped += c->client_counters[7];
  }
  Json server_list = Json::array();
  bool within = true;
  for (const RankResult* s : servers) {
    within = within && s->server_counters[1] <= s->server_counters[0];
    server_list.push_back(counters_json(dn_server_counters(), s->server_counters)
                              .set("seconds_in_ecluse_start", s->server_start));
  }
  return Json::object()
      .set("window_bytes_per_client", clients.front()->client_counters[0])
      .set("credit_waits_all_clients", waits)
      .set("credit_wait_seconds_all_clients", wait_s)
      .set("credit_wait_seconds_worst_client", worst_wait_s)
      .set("lowest_credit_bytes_any_client", lowest)
      .set("sent_bytes_all_clients", sent)
      .set("skipped_blocks_all_clients", skipped)
      .set("servers", std::move(server_list))
      .set("peak_held_within_receive_memory", within)
      .set("client_0", counters_json(dn_client_counters(), clients.front()->client_counters));
}

std::string label(const Options& o, int clients, int servers) {
  const std::string c = std::to_string(clients) + " client(s)";
  if (o.approach == Approach::TP) return "TP: " + c + ", each writes its own file";
  if (o.approach == Approach::DC) return "DC: " + c + " + 1 dedicated core";
  return "DN: " + c + " + " + std::to_string(servers) + " server rank(s) on 1 dedicated node";
}

Json setup(const Options& o, int ranks, int clients, int servers) {
  const bool over = oversubscribed(ranks);
  return Json::object()
      .set("benchmark", "approach_compare")
      .set("approach", approach_name(o.approach))
      .set("label", label(o, clients, servers))
      .set("ranks", ranks)
      .set("clients", clients)
      .set("servers", servers)
      .set("ranks_per_node", o.approach == Approach::DN ? Json(o.ranks_per_node) : Json())
      .set("oversubscribed", over)
      .set("note", over ? "more ranks than cores: the timings prove behaviour (credit waits, "
                          "memory bound), not speed"
                        : "at most one busy process per core")
      .set("bytes_per_client", o.bytes)
      .set("iterations", o.iterations)
      .set("compute_ms_target", o.compute_ms)
      .set("buffer_iterations", o.approach == Approach::TP ? Json() : Json(o.buffer_iterations))
      .set("buffer_copy", o.buffer_copy.empty() ? Json("auto") : Json(o.buffer_copy))
      .set("buffer_prefault", o.prefault)
      .set("buffer_bytes", o.approach == Approach::TP ? Json() : Json(buffer_bytes(o, ranks)))
      .set("store", "HDF5 FilePerCore")
      .set("durability",
           "page cache: the HDF5 stores never fsync (src/store), so a stored "
           "file is in the page cache, not necessarily on disk")
      .set("write", o.zero_copy ? "ecluse_alloc + ecluse_commit + ecluse_end_iteration (zero "
                                  "copy: the field is produced in the room), as the client sees it"
                                : "ecluse_write + ecluse_end_iteration, as the client sees it")
      .set("compute", o.produce ? "the work units, then the field written once (--produce)"
                                : "the work units (the field is written once, before the loop)")
      .set("memcpy",
           "memcpy of the same block into a touched buffer, each iteration, in "
           "alternating order with the write")
      .set("end_to_end",
           "first compute phase until every rank is past ecluse_finalize "
           "(everything stored)");
}

Json report(const Options& o, const std::vector<RankResult>& all, int ranks) {
  const auto clients = with_role(all, 1);
  const auto servers = with_role(all, 2);
  const std::vector<double> write = slowest(clients, &RankResult::write);
  const std::vector<double> memcpy_all = pooled(clients, &RankResult::memcpy);
  const std::vector<double> after_first(write.begin() + 1, write.end());
  double loop = 0, end_to_end = 0;
  for (const RankResult* c : clients) {
    loop = std::max(loop, c->loop);
    end_to_end = std::max(end_to_end, c->end_to_end);
  }
  Json out = setup(o, ranks, static_cast<int>(clients.size()), static_cast<int>(servers.size()));
  out.set("write_ms", spread_ms(write))
      .set("write_first_ms", write.front() * kMs)
      .set("write_ms_after_first", spread_ms(after_first))
      .set("write_ms_percentiles", summary(write, kMs))
      .set("write_ms_all_samples", spread_ms(pooled(clients, &RankResult::write)));
  if (!o.baseline_memcpy) {
    out.set("memcpy", "off (--memcpy off): nothing but the compute phase and the output");
  } else {
    out.set("memcpy_ms", spread_ms(memcpy_all))
        .set("write_over_memcpy_p50", median(write) / median(memcpy_all));
  }
  out.set("compute_ms", spread_ms(slowest(clients, &RankResult::compute)))
      .set("loop_s", loop)
      .set("end_to_end_s", end_to_end)
      .set("ms_per_iteration", end_to_end * kMs / o.iterations)
      .set("write_ms_series", series_ms(write))
      .set("statistic", "write_ms: per iteration the slowest client, then over iterations");
  if (o.approach == Approach::DN) out.set("dn", dn_report(clients, servers));
  return out.set("build", build_info());
}

Options parse(const Args& args) {
  Options o;
  o.approach = parse_approach(args.get("approach", "tp"));
  o.dir = args.get("dir", "");
  if (o.dir.empty()) fail("--dir DIRECTORY is required");
  o.bytes = static_cast<std::uint64_t>(args.number("mib", 16) * 1048576.0) / 8 * 8;
  o.iterations = static_cast<int>(args.number("iterations", 16));
  o.compute_ms = args.number("compute-ms", 40);
  o.buffer_iterations = static_cast<int>(args.number("buffer-iterations", 3));
  o.ranks_per_node = static_cast<int>(args.number("ranks-per-node", 1));
  const std::string copy = args.get("memcpy", "on");
  if (copy != "on" && copy != "off") fail("--memcpy takes on or off, not '" + copy + "'");
  o.baseline_memcpy = copy == "on";
  o.work_units = static_cast<std::uint64_t>(args.number("work-units", 0));
  o.zero_copy = args.flag("zero-copy");
  o.buffer_copy = args.get("buffer-copy", "");
  const std::string prefault = args.get("prefault", "on");
  if (prefault != "on" && prefault != "off")
    fail("--prefault takes on or off, not '" + prefault + "'");
  o.prefault = prefault == "on";
  o.produce = args.flag("produce") || o.zero_copy;
  if (o.zero_copy && o.baseline_memcpy) fail("--zero-copy needs --memcpy off (nothing is copied)");
  if (o.iterations < 2) fail("--iterations must be at least 2");
  return o;
}

/** Runs the session on this rank; returns what it measured. */
RankResult run_rank(const Options& o, std::uint64_t work, int ranks) {
  check(ecluse_initialize_string(config(o, ranks).c_str(), MPI_COMM_WORLD), "initialize");
  const auto start = Clock::now();
  int is_client = 0;
  check(ecluse_start(&is_client), "ecluse_start");
  RankResult r;
  Clock::time_point loop_start = Clock::now();
  if (is_client) {
    r = run_client(o, work, &loop_start);
    check(ecluse_stop(), "ecluse_stop");
    if (o.approach == Approach::DN) r.client_counters = read_counters(dn_client_counters());
  } else {
    r.role = 2;
    r.server_start = seconds_between(start, Clock::now());
    if (o.approach == Approach::DN) r.server_counters = read_counters(dn_server_counters());
  }
  check(ecluse_finalize(), "ecluse_finalize");
  sleepy_barrier(MPI_COMM_WORLD);  // every server has stored everything
  if (is_client) r.end_to_end = seconds_between(loop_start, Clock::now());
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int ranks = world_size();
  const Options o = parse(Args(argc, argv));
  if (o.approach != Approach::TP && clients_of(o, ranks) < 1) {
    fail("dc and dn need at least one client rank besides the servers");
  }
  std::uint64_t work = o.work_units > 0 ? o.work_units : Work::calibrate(o.compute_ms / kMs);
  MPI_Bcast(&work, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  const Interference interference;
  const RankResult mine = run_rank(o, work, ranks);
  const std::vector<RankResult> all = gather(mine, o.iterations);
  Json load = interference.report(MPI_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    Json out = report(o, all, ranks).set("work_units", work).set("interference", load);
    print_on_rank0(out.set("bytes_on_disk", bytes_on_disk(o.dir)).dump(), 0);
  }
  MPI_Finalize();
  return 0;
}
