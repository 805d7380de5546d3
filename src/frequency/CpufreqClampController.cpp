// Write order keeps min <= max after every write, which older kernels require (they refuse the
// write otherwise): to go below the current minimum, the minimum goes down first.
#include "frequency/CpufreqClampController.hpp"

#include <algorithm>

namespace ecluse {

CpufreqClampController::CpufreqClampController(SysfsFiles files, std::string driver)
    : CpufreqController(std::move(files)), driver_(std::move(driver)) {}

std::string CpufreqClampController::describe() const {
  return "cpufreq scaling_max_freq clamp (" + driver_ + ")";
}

// Never above the maximum already set (a site's cap, Slurm's --cpu-freq): a lowering that
// raised it would speed the core up.
void CpufreqClampController::apply_cpu(const FrequencyTarget& target, int cpu) {
  const std::uint64_t khz = std::min(target_khz(target, cpu), read_khz(cpu, "scaling_max_freq"));
  save(cpu, "scaling_min_freq");  // saved before max: restored after it (newest first)
  save(cpu, "scaling_max_freq");
  const std::string value = std::to_string(khz);
  if (read_khz(cpu, "scaling_min_freq") > khz) write(cpu, "scaling_min_freq", value);
  write(cpu, "scaling_max_freq", value);
  record("cpu " + std::to_string(cpu) + ": scaling_max_freq " + value + " kHz (target " +
         target.to_string() + ")");
}

}  // namespace ecluse
