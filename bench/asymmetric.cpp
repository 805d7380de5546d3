// Asymmetric dedicated cores against symmetric ones, side by side in one run: 2 clients and 2
// dedicated cores on one virtual node of 4 ranks, with an analysis (an iteration plugin of this
// program) that takes longer than the write. Symmetric: each core stores its client's blocks,
// then analyses them. Asymmetric (roles="store analysis"): one core stores every block of the
// node, the other analyses every block in the shared buffer. Reports the clients' iteration
// time and each dedicated core's idle fraction (1 - its CPU time / its serving time).
#include <time.h>

#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "BenchSupport.hpp"
#include "ecluse/ecluse.h"
#include "ecluse/plugin.h"

ECLUSE_PLUGIN_DECLARE();

namespace {

using namespace ecluse::bench;

constexpr double kMs = 1e3;
double g_analysis_seconds = 0.02;  // per block, CPU-bound
volatile double g_sink = 0;

struct Options {
  std::string dir;
  int iterations = 30;
  double compute_ms = 60;
  double analysis_ms = 20;
  std::uint64_t bytes = 8ull << 20;
};

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

std::string config(const Options& o, const std::string& roles) {
  const std::string elements = std::to_string(o.bytes / sizeof(double));
  const std::string roles_attribute = roles.empty() ? "" : " roles=\"" + roles + "\"";
  return R"(<simulation name="asym"><architecture><domains count="1"/><dedicated cores="2")" +
         roles_attribute + R"(/><virtual-nodes ranks-per-node="4"/><buffer size=")" +
         std::to_string(8 * footprint(o.bytes) + 65536) + R"("/></architecture><data>
    <layout name="l" type="double" dimensions=")" +
         elements + R"("/><variable name="field" layout="l"/></data>
    <storage><store name="s" type="HDF5"><option key="FileMode">FilePerCore</option>
    <option key="FilesPath">)" +
         o.dir + R"(</option></store></storage><actions><event name="analysis" )" +
         R"(action="bench_analysis" kind="iteration"/></actions><log FileName=")" + o.dir +
         R"(/log"/></simulation>)";
}

struct Sample {
  double loop = 0;                // clients: the loop; servers: time inside ecluse_start
  double cpu = 0;                 // servers: CPU time inside ecluse_start
  std::vector<double> iteration;  // clients: compute + output of each iteration
};

Sample run_client(const Options& o) {
  std::vector<double> field(o.bytes / sizeof(double));
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fill_pattern(field.data(), o.bytes, static_cast<unsigned>(rank));
  Sample s;
  const auto start = Clock::now();
  for (int it = 0; it < o.iterations; ++it) {
    const auto t0 = Clock::now();
    // The compute phase sleeps, so that on 2 cores the two dedicated cores have one each.
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(o.compute_ms));
    check(ecluse_write("field", field.data()), "ecluse_write");
    check(ecluse_end_iteration(), "ecluse_end_iteration");
    s.iteration.push_back(seconds_between(t0, Clock::now()));
  }
  check(ecluse_stop(), "ecluse_stop");
  s.loop = seconds_between(start, Clock::now());
  return s;
}

Sample run_mode(const Options& o, const std::string& roles) {
  remove_files(o.dir);
  check(ecluse_initialize_string(config(o, roles).c_str(), MPI_COMM_WORLD), "initialize");
  Sample s;
  const auto start = Clock::now();
  const double cpu = thread_cpu_seconds();
  int is_client = 0;
  check(ecluse_start(&is_client), "ecluse_start");
  if (is_client) {
    s = run_client(o);
  } else {
    s.loop = seconds_between(start, Clock::now());
    s.cpu = thread_cpu_seconds() - cpu;
  }
  check(ecluse_finalize(), "ecluse_finalize");
  return s;
}

/** Rank 0 gets every rank's sample: loop, cpu, then the iteration times (servers: zeros). */
std::vector<Sample> gather(const Sample& mine, int iterations) {
  int size = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<double> flat(static_cast<std::size_t>(iterations + 2), 0.0);
  flat[0] = mine.loop;
  flat[1] = mine.cpu;
  std::copy(mine.iteration.begin(), mine.iteration.end(), flat.begin() + 2);
  std::vector<double> all(flat.size() * static_cast<std::size_t>(size));
  MPI_Gather(flat.data(), static_cast<int>(flat.size()), MPI_DOUBLE, all.data(),
             static_cast<int>(flat.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  std::vector<Sample> samples;
  for (int r = 0; rank == 0 && r < size; ++r) {
    const double* f = all.data() + static_cast<std::size_t>(r) * flat.size();
    samples.push_back({f[0], f[1], {f + 2, f + 2 + iterations}});
  }
  return samples;
}

// Ranks 0 and 1 are the clients, 2 and 3 the dedicated cores (the last of the node), in the
// order of `roles`.
Json mode_report(const std::vector<Sample>& samples, const std::string& roles, int iterations,
                 double& mean_iteration) {
  std::vector<double> slowest(static_cast<std::size_t>(iterations), 0.0);
  for (int c = 0; c < 2; ++c) {
    for (int i = 0; i < iterations; ++i) {
      slowest[static_cast<std::size_t>(i)] =
          std::max(slowest[static_cast<std::size_t>(i)],
                   samples[static_cast<std::size_t>(c)].iteration[static_cast<std::size_t>(i)]);
    }
  }
  mean_iteration = mean(slowest);
  Json servers = Json::array();
  const char* symmetric[] = {"store+analysis", "store+analysis"};
  const char* asymmetric[] = {"store", "analysis"};
  for (int s = 0; s < 2; ++s) {
    const Sample& server = samples[static_cast<std::size_t>(2 + s)];
    servers.push_back(Json::object()
                          .set("role", roles.empty() ? symmetric[s] : asymmetric[s])
                          .set("serving_s", server.loop)
                          .set("cpu_s", server.cpu)
                          .set("idle_fraction", 1.0 - server.cpu / server.loop));
  }
  return Json::object()
      .set("roles", roles.empty() ? "symmetric (no roles)" : roles)
      .set("iteration_ms", summary(slowest, kMs))
      .set("loop_s", std::max(samples[0].loop, samples[1].loop))
      .set("dedicated_cores", servers);
}

}  // namespace

// The analysis: CPU-bound, g_analysis_seconds per block, reading the block (no copy).
extern "C" int bench_analysis(const ecluse_plugin_iteration* it) {
  for (std::size_t b = 0; b < it->block_count; ++b) {
    const auto* data = static_cast<const double*>(it->blocks[b].data);
    const auto start = ecluse::bench::Clock::now();
    double sum = 0;
    for (std::size_t i = 0;
         ecluse::bench::seconds_between(start, ecluse::bench::Clock::now()) < g_analysis_seconds;
         ++i) {
      sum += data[(i * 4099) % it->blocks[b].dims[0]];
    }
    g_sink = g_sink + sum;
  }
  return 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int ranks = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (ranks != 4) fail("runs on 4 ranks (2 clients + 2 dedicated cores on one virtual node)");
  const Args args(argc, argv);
  Options o;
  o.dir = args.get("dir", "");
  if (o.dir.empty()) fail("--dir DIRECTORY is required");
  o.iterations = static_cast<int>(args.number("iterations", 30));
  o.compute_ms = args.number("compute-ms", 60);
  o.analysis_ms = args.number("analysis-ms", 20);
  o.bytes = static_cast<std::uint64_t>(args.number("mib", 8) * 1048576.0) / 8 * 8;
  g_analysis_seconds = o.analysis_ms / kMs;
  const Interference interference;
  const Sample symmetric = run_mode(o, "");
  const Sample asymmetric = run_mode(o, "store analysis");
  const auto sym = gather(symmetric, o.iterations);
  const auto asym = gather(asymmetric, o.iterations);
  Json interference_json = interference.report(MPI_COMM_WORLD);
  if (rank == 0) {
    double sym_mean = 0, asym_mean = 0;
    const Json s = mode_report(sym, "", o.iterations, sym_mean);
    const Json a = mode_report(asym, "store analysis", o.iterations, asym_mean);
    const unsigned cores = std::thread::hardware_concurrency();
    Json out = Json::object()
                   .set("benchmark", "asymmetric")
                   .set("ranks", ranks)
                   .set("cores", static_cast<int>(cores))
                   .set("oversubscribed", ranks > static_cast<int>(cores))
                   .set("label",
                        "2 clients + 2 dedicated cores on one virtual node; the "
                        "clients' compute phase sleeps, so the dedicated cores have "
                        "the CPUs" +
                            std::string(ranks > static_cast<int>(cores)
                                            ? " (4 ranks oversubscribe this machine)"
                                            : ""))
                   .set("iterations", o.iterations)
                   .set("compute_ms", o.compute_ms)
                   .set("analysis_ms_per_block", o.analysis_ms)
                   .set("bytes_per_block", o.bytes)
                   .set("store", "HDF5 FilePerCore")
                   .set("symmetric", s)
                   .set("asymmetric", a)
                   .set("iteration_mean_ratio_asymmetric_over_symmetric", asym_mean / sym_mean)
                   .set("interference", interference_json)
                   .set("build", build_info());
    std::printf("%s\n", out.dump().c_str());
  }
  MPI_Finalize();
  return 0;
}
