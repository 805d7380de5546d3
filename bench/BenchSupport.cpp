// Helpers shared by the benchmarks (see BenchSupport.hpp).
#include "BenchSupport.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <thread>

#include "ecluse/ecluse.h"

namespace ecluse::bench {

namespace fs = std::filesystem;

double percentile(std::vector<double> samples, double p) {
  if (samples.empty()) return std::nan("");
  std::sort(samples.begin(), samples.end());
  const double rank = p / 100.0 * static_cast<double>(samples.size() - 1);
  const auto low = static_cast<std::size_t>(std::floor(rank));
  const std::size_t high = std::min(low + 1, samples.size() - 1);
  return samples[low] + (rank - static_cast<double>(low)) * (samples[high] - samples[low]);
}

double mean(const std::vector<double>& samples) {
  if (samples.empty()) return std::nan("");
  return std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
}

double maximum(const std::vector<double>& samples) {
  return samples.empty() ? std::nan("") : *std::max_element(samples.begin(), samples.end());
}

Json summary(const std::vector<double>& seconds, double unit_per_second) {
  auto in_unit = [&](double s) { return s * unit_per_second; };
  return Json::object()
      .set("count", static_cast<int>(seconds.size()))
      .set("p50", in_unit(percentile(seconds, 50)))
      .set("p90", in_unit(percentile(seconds, 90)))
      .set("p99", in_unit(percentile(seconds, 99)))
      .set("max", in_unit(maximum(seconds)))
      .set("mean", in_unit(mean(seconds)));
}

Args::Args(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string key = argv[i];
    if (key.rfind("--", 0) != 0) fail("unexpected argument '" + key + "'; options are --key value");
    key = key.substr(2);
    const bool has_value = i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0;
    values_[key] = has_value ? argv[++i] : "";
  }
}

std::string Args::get(const std::string& key, const std::string& fallback) const {
  auto it = values_.find(key);
  return it == values_.end() ? fallback : it->second;
}

double Args::number(const std::string& key, double fallback) const {
  auto it = values_.find(key);
  return it == values_.end() ? fallback : std::strtod(it->second.c_str(), nullptr);
}

bool Args::flag(const std::string& key) const {
  return values_.count(key) != 0;
}

std::uint64_t footprint(std::uint64_t bytes) {
  return 64 + (bytes + 63) / 64 * 64;
}

namespace {

std::string variables_xml(const ConfigSpec& spec) {
  std::string xml;
  for (const auto& [name, bytes] : spec.variables) {
    xml += "<layout name=\"l_" + name + "\" type=\"double\" dimensions=\"" +
           std::to_string(bytes / sizeof(double)) + "\"/>";
    xml += "<variable name=\"" + name + "\" layout=\"l_" + name + "\" store=\"out\"/>";
  }
  return xml;
}

std::string store_xml(const ConfigSpec& spec) {
  std::string xml = "<store name=\"out\" type=\"" + spec.store_type + "\">";
  if (spec.store_type == "HDF5") {
    xml += "<option key=\"FileMode\">" + spec.file_mode + "</option>";
    xml += "<option key=\"FilesPath\">" + spec.files_path + "</option>";
  }
  return xml + "</store>";
}

std::string actions_xml(const ConfigSpec& spec) {
  if (spec.events.empty()) return "";
  std::string xml = "<actions>";
  for (const auto& e : spec.events) xml += "<event name=\"" + e + "\" action=\"bench_" + e + "\"/>";
  return xml + "</actions>";
}

}  // namespace

std::string make_config(const ConfigSpec& spec) {
  std::string xml = "<simulation name=\"" + spec.simulation +
                    "\" xmlns=\"urn:ecluse:config:1\"><architecture><domains count=\"1\"/>";
  xml += "<dedicated cores=\"" + std::to_string(spec.dedicated_cores) + "\" nodes=\"0\"/>";
  if (spec.dedicated_cores > 0) {
    xml += "<buffer size=\"" + std::to_string(spec.buffer_bytes) + "\"/>";
    xml += "<virtual-nodes ranks-per-node=\"" + std::to_string(spec.ranks_per_node) + "\"/>";
  }
  xml += "</architecture><data>" + variables_xml(spec) + "</data>";
  xml += "<storage>" + store_xml(spec) + "</storage>" + actions_xml(spec);
  if (!spec.log_file.empty()) {
    xml += "<log LogLevel=\"warning\" FileName=\"" + spec.log_file + "\"/>";
  }
  return xml + "</simulation>";
}

void fail(const std::string& message) {
  std::fprintf(stderr, "benchmark error: %s\n", message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

void check(int status, const char* what) {
  if (status == ECLUSE_OK) return;
  fail(std::string(what) + ": " + ecluse_status_name(status) + ": " + ecluse_error_message());
}

void sleepy_barrier(MPI_Comm comm) {
  MPI_Request request;
  MPI_Ibarrier(comm, &request);
  int done = 0;
  while (MPI_Test(&request, &done, MPI_STATUS_IGNORE), !done) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

void print_on_rank0(const std::string& text, int from) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::string message = text;
  if (from != 0 && rank == from) {
    MPI_Send(message.data(), static_cast<int>(message.size()), MPI_CHAR, 0, 99, MPI_COMM_WORLD);
  } else if (from != 0 && rank == 0) {
    MPI_Status status;
    MPI_Probe(from, 99, MPI_COMM_WORLD, &status);
    int length = 0;
    MPI_Get_count(&status, MPI_CHAR, &length);
    message.assign(static_cast<std::size_t>(length), '\0');
    MPI_Recv(message.data(), length, MPI_CHAR, from, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (rank == 0) {
    std::fputs((message + "\n").c_str(), stdout);
    std::fflush(stdout);
  }
}

void fill_pattern(void* data, std::size_t bytes, unsigned seed) {
  auto* words = static_cast<std::uint64_t*>(data);
  std::uint64_t x = 0x9e3779b97f4a7c15ull * (seed + 1);
  for (std::size_t i = 0; i < bytes / sizeof(std::uint64_t); ++i) words[i] = x += 0x632be5ab;
  auto* tail = static_cast<unsigned char*>(data);
  for (std::size_t i = bytes / 8 * 8; i < bytes; ++i) tail[i] = static_cast<unsigned char>(i);
}

void produce_field(double* dst, std::size_t n, int iteration) {
  const double base = 1e6 * iteration;
  for (std::size_t i = 0; i < n; ++i) dst[i] = base + static_cast<double>(i);
}

std::string size_name(std::uint64_t bytes) {
  if (bytes >= (1ull << 20) && bytes % (1ull << 20) == 0) {
    return std::to_string(bytes >> 20) + "MiB";
  }
  if (bytes % 1024 == 0) return std::to_string(bytes >> 10) + "KiB";
  return std::to_string(bytes) + "B";
}

namespace {
volatile double g_sink = 0;  // keeps the compiler from removing the work
}

void Work::run(std::uint64_t units) {
  double a = 1.0, b = 1e-9;
  for (std::uint64_t i = 0; i < units; ++i) {
    a = a * 1.0000001 + b;
    b = b * 0.9999999 + 1e-12;
  }
  g_sink = a + b;
}

std::uint64_t Work::calibrate(double seconds) {
  const std::uint64_t probe = 2'000'000;
  double best = 1e9;
  for (int trial = 0; trial < 5; ++trial) {
    const auto t0 = Clock::now();
    run(probe);
    best = std::min(best, seconds_between(t0, Clock::now()));
  }
  return static_cast<std::uint64_t>(static_cast<double>(probe) * seconds / best);
}

long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

bool fsync_path(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

void sync_directory(const std::string& directory) {
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::syncfs(fd);
  ::close(fd);
}

void remove_files(const std::string& directory) {
  std::error_code ignored;
  for (const auto& entry : fs::directory_iterator(directory, ignored)) {
    if (entry.is_regular_file(ignored)) fs::remove(entry.path(), ignored);
  }
}

std::string stored_file(const std::string& files_path, const std::string& simulation, int iteration,
                        int writer) {
  return files_path + "/" + simulation + "_It" + std::to_string(iteration) + "_Pr" +
         std::to_string(writer) + ".h5";
}

namespace {
std::string g_sync_path;
std::string g_sync_simulation;
int g_sync_failures = 0;

void server_fsync(const char* /*event*/, int32_t /*source*/, int32_t iteration,
                  const char* /*args*/) {
  if (!fsync_path(stored_file(g_sync_path, g_sync_simulation, iteration - 1, 0))) {
    ++g_sync_failures;
  }
}
}  // namespace

void bind_server_fsync(const std::string& files_path, const std::string& simulation) {
  g_sync_path = files_path;
  g_sync_simulation = simulation;
  check(ecluse_bind("sync", server_fsync), "ecluse_bind(sync)");
}

int server_fsync_failures() {
  return g_sync_failures;
}

Interference::Interference() : start_(Clock::now()), own_(own_cpu_seconds()) {
  busy_ = machine_busy_seconds(&steal_);
}

double Interference::machine_busy_seconds(double* steal) {
  std::FILE* f = std::fopen("/proc/stat", "r");
  unsigned long long v[8] = {};
  const int n = f ? std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
                                &v[2], &v[3], &v[4], &v[5], &v[6], &v[7])
                  : 0;
  if (f) std::fclose(f);
  if (n < 8) return std::nan("");
  const double tick = 1.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
  *steal = static_cast<double>(v[7]) * tick;
  // user nice system idle iowait irq softirq steal: busy = all but idle and iowait.
  return static_cast<double>(v[0] + v[1] + v[2] + v[5] + v[6]) * tick;
}

double Interference::own_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

Json Interference::report(MPI_Comm comm) const {
  double own = own_cpu_seconds() - own_;
  MPI_Allreduce(MPI_IN_PLACE, &own, 1, MPI_DOUBLE, MPI_SUM, comm);
  double steal = 0;
  const double busy = machine_busy_seconds(&steal) - busy_;
  const double wall = seconds_between(start_, Clock::now());
  const double cores = static_cast<double>(sysconf(_SC_NPROCESSORS_ONLN));
  const double other = std::max(0.0, busy - own);
  return Json::object()
      .set("wall_s", wall)
      .set("job_cpu_s", own)
      .set("other_cpu_s", other)
      .set("other_cpu_fraction_of_machine", other / (wall * cores))
      .set("steal_s", steal - steal_)
      .set("note",
           "other = machine busy time (/proc/stat) - this job's CPU time: other "
           "processes and kernel threads (writeback included), 10 ms resolution");
}

Json build_info() {
#ifdef ECLUSE_BENCH_BUILD_TYPE
  const char* type = ECLUSE_BENCH_BUILD_TYPE;
#else
  const char* type = "unknown";
#endif
  return Json::object().set("build_type", type).set("compiler", __VERSION__);
}

}  // namespace ecluse::bench
