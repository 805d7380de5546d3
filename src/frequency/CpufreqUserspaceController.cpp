// scaling_setspeed reads "<unsupported>" under any other governor, so it is saved only when the
// original governor was already userspace; restoring the governor is what undoes the rest.
#include "frequency/CpufreqUserspaceController.hpp"

#include <sstream>

namespace ecluse {

CpufreqUserspaceController::CpufreqUserspaceController(SysfsFiles files, std::string driver)
    : CpufreqController(std::move(files)), driver_(std::move(driver)) {}

std::string CpufreqUserspaceController::describe() const {
  return "cpufreq userspace governor + scaling_setspeed (" + driver_ + ")";
}

std::uint64_t CpufreqUserspaceController::available_at_most(int cpu, std::uint64_t khz) const {
  const auto list = saved_.files().try_read(cpufreq_file(cpu, "scaling_available_frequencies"));
  std::istringstream in(list.value_or(""));
  std::uint64_t best = 0;
  std::uint64_t lowest = 0;
  for (std::uint64_t f = 0; in >> f;) {
    if (f <= khz && f > best) best = f;
    if (lowest == 0 || f < lowest) lowest = f;
  }
  if (best != 0) return best;
  return lowest != 0 ? lowest : khz;  // no list: the driver rounds by itself
}

void CpufreqUserspaceController::apply_cpu(const FrequencyTarget& target, int cpu) {
  const std::uint64_t khz = available_at_most(cpu, target_khz(target, cpu));
  save(cpu, "scaling_governor");
  const std::string* governor = saved_.original(cpufreq_file(cpu, "scaling_governor"));
  if (*governor == "userspace") save(cpu, "scaling_setspeed");
  if (read_text(cpu, "scaling_governor") != "userspace")
    write(cpu, "scaling_governor", "userspace");
  write(cpu, "scaling_setspeed", std::to_string(khz));
  record("cpu " + std::to_string(cpu) + ": governor userspace, scaling_setspeed " +
         std::to_string(khz) + " kHz (target " + target.to_string() + ")");
}

}  // namespace ecluse
