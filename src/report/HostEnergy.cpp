// Probing and reading a host's energy source on its first rank.
#include "report/HostEnergy.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "core/Collective.hpp"
#include "core/Process.hpp"
#include "ecluse/Error.hpp"
#include "energy/Calibration.hpp"
#include "energy/EnergyRegistry.hpp"

namespace ecluse {

std::string system_root() {
  const char* root = std::getenv("ECLUSE_SYSFS_ROOT");
  return root && *root ? root : "/";
}

namespace {
Calibration configured_calibration(const EnergyConfig& config, const SysfsFiles& files) {
  if (config.model_given) {
    return explicit_calibration(config.idle_watts, config.max_watts, config.model_id);
  }
  std::string file = config.calibration_file;
  if (const char* env = std::getenv("ECLUSE_CALIBRATION"); env && *env) file = env;
  if (file.empty()) return default_calibration();
  return load_calibration(file, host_name(files), cpu_model(files));
}

// A calibration file that cannot be used concerns the model only: measured counters still
// count, and the model falls back to the default (labelled default-uncalibrated).
Calibration calibration_of(const EnergyConfig& config, const SysfsFiles& files, Log& log) {
  try {
    return configured_calibration(config, files);
  } catch (const Error& e) {
    log.warning(std::string("energy: ") + e.what() +
                "; a modelled figure uses the default calibration");
    return default_calibration();
  }
}
}  // namespace

namespace {
// The host's CPU times now, or nothing where /proc/stat cannot be read.
std::optional<CpuTimes> host_cpu_times() {
  try {
    return CpuTimes::read(SysfsFiles(system_root()));
  } catch (const std::exception&) {  // SysfsError (unreadable) or ecluse::Error (malformed)
    return std::nullopt;
  }
}

double busy_seconds_between(const CpuTimes& start, const CpuTimes& end) {
  const long ticks = sysconf(_SC_CLK_TCK);
  if (end.busy < start.busy || ticks <= 0) return -1;
  return static_cast<double>(end.busy - start.busy) / static_cast<double>(ticks);
}
}  // namespace

// Hosts from the ranks' host names, gathered with a bounded collective (MPI_Comm_split_type
// has no nonblocking form: a rank killed during set-up would leave the others in it for ever).
HostEnergy::HostEnergy(MPI_Comm world, const EnergyConfig& config, Log& log) {
  int rank = 0;
  MPI_Comm_rank(world, &rank);
  const std::vector<std::string> names = gather_strings(world, this_host_name());
  std::vector<std::string> seen;
  for (int r = 0; r < static_cast<int>(names.size()); ++r) {
    const auto at = std::find(seen.begin(), seen.end(), names[static_cast<std::size_t>(r)]);
    if (r == rank) host_ = static_cast<int>(at - seen.begin());
    if (at == seen.end()) seen.push_back(names[static_cast<std::size_t>(r)]);
    if (r < rank && names[static_cast<std::size_t>(r)] == names[static_cast<std::size_t>(rank)]) {
      ++host_rank_;
    }
  }
  hosts_ = static_cast<int>(seen.size());
  if (host_rank_ == 0) open_source(config, log);
}

HostEnergy::~HostEnergy() {
  if (ticker_) ticker_->stop();
}

namespace {

// The counters looked for and not found, in one line (the run report names the source used).
void log_skipped_sources(const ProbeResult& probe, Log& log) {
  if (probe.skipped.empty()) return;
  std::string line = "energy: not found: ";
  for (std::size_t i = 0; i < probe.skipped.size(); ++i) {
    line += (i ? "; " : "") + probe.skipped[i];
  }
  log.info(line + "; using " + probe.source->name());
}

}  // namespace

// Energy is never a reason to stop a simulation: a failure leaves a note and 0 J.
void HostEnergy::open_source(const EnergyConfig& config, Log& log) {
  const SysfsFiles files(system_root());
  host_name_ = host_name(files);
  start_cpu_ = host_cpu_times();
  try {
    ProbeContext context;
    context.root = system_root();
    context.calibration = calibration_of(config, files, log);
    if (config.source == nullptr) {
      ProbeResult probe = probe_energy_source(context);
      log_skipped_sources(probe, log);
      source_ = std::move(probe.source);
    } else {
      source_ = open_energy_source(*config.source, context);
    }
    start_ = source_->read();
    start_time_ = monotonic_seconds();
    ticker_ = std::make_unique<EnergyTicker>(
        *source_, std::chrono::milliseconds(static_cast<long>(config.period_seconds * 1000)));
  } catch (const Error& e) {
    log.warning(std::string("energy: no source could be read (") + e.what() +
                "); the report will show no energy figure.");
    source_.reset();
  }
}

HostEnergyFigure HostEnergy::finish() {
  HostEnergyFigure f;
  f.host = host_name_;
  if (!source_) {
    f.source = "none";
    f.quality = "none";
    f.note = "no energy source could be read";
    return f;
  }
  try {
    const EnergyReading end = ticker_->read_now();
    ticker_->stop();
    f.source = end.source;
    f.quality = to_string(end.quality);
    f.calibration = end.calibration;
    f.note = end.note;
    f.joules = end.total_joules() - start_.total_joules();
    f.seconds = monotonic_seconds() - start_time_;
    const auto end_cpu = host_cpu_times();
    if (start_cpu_ && end_cpu) f.busy_cpu_s = busy_seconds_between(*start_cpu_, *end_cpu);
  } catch (const Error& e) {
    f.source = source_->name();
    f.quality = "none";
    f.note = std::string("final reading failed: ") + e.what();
  }
  return f;
}

}  // namespace ecluse
