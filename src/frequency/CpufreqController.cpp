// Every failure to touch cpufreq is reported the same way whichever controller hit it: the
// fallback controller prints the line once and the run goes on at the current frequency.
#include "frequency/CpufreqController.hpp"

#include <cerrno>

namespace ecluse {

std::string cpufreq_file(int cpu, const std::string& file) {
  return "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/" + file;
}

std::string cpu_list(const std::vector<int>& cpus) {
  std::string text;
  for (int cpu : cpus) text += (text.empty() ? "" : ",") + std::to_string(cpu);
  return text;
}

CpufreqController::CpufreqController(SysfsFiles files) : saved_(std::move(files)) {}

CpufreqController::~CpufreqController() {
  try {
    restore();
  } catch (const std::exception&) {
    // A destructor cannot report; restore() at finalize is where failures are seen.
  }
}

std::string CpufreqController::unavailable_message(const SysfsError& error) {
  const bool denied = error.error() == EACCES || error.error() == EPERM || error.error() == EROFS;
  const std::string fix =
      denied ? "run as root or through a privileged helper (Slurm --cpu-freq, likwid-setFreq, "
               "GEOPM service), or remove the frequency policy"
             : "this machine offers no such cpufreq setting (no cpufreq driver, or a driver "
               "without it); remove the frequency policy";
  return "frequency control not available: " + std::string(error.what()) + "; " + fix +
         "; continuing without frequency control";
}

void CpufreqController::apply(const FrequencyTarget& target, const std::vector<int>& cpus) {
  try {
    for (int cpu : cpus) apply_cpu(target, cpu);
  } catch (const SysfsError& e) {
    throw FrequencyUnavailable(unavailable_message(e));
  } catch (const Error& e) {
    throw FrequencyUnavailable("frequency control not available: " + std::string(e.what()) +
                               "; continuing without frequency control");
  }
}

void CpufreqController::restore() {
  std::string failures;
  for (const std::string& failure : saved_.restore()) failures += "; " + failure;
  if (failures.empty()) return;
  throw Error(ECLUSE_IO_ERROR, "could not restore the CPU frequency settings" + failures);
}

std::string CpufreqController::read_text(int cpu, const std::string& file) const {
  return trim(saved_.files().read(cpufreq_file(cpu, file)));
}

std::uint64_t CpufreqController::read_khz(int cpu, const std::string& file) const {
  const std::string absolute = cpufreq_file(cpu, file);
  return parse_leading_uint(saved_.files().read(absolute), saved_.files().path(absolute));
}

std::uint64_t CpufreqController::target_khz(const FrequencyTarget& target, int cpu) const {
  return target.resolve(read_khz(cpu, "cpuinfo_min_freq"), read_khz(cpu, "cpuinfo_max_freq"));
}

void CpufreqController::save(int cpu, const std::string& file) {
  saved_.save(cpufreq_file(cpu, file));
}

void CpufreqController::write(int cpu, const std::string& file, const std::string& value) {
  const std::string absolute = cpufreq_file(cpu, file);
  saved_.files().write(absolute, value);
  saved_.changed(absolute);
}

}  // namespace ecluse
