// Drivers with the `userspace` governor (acpi-cpufreq, intel_cpufreq, cppc_cpufreq, ...): the
// governor is switched to userspace and the frequency written to scaling_setspeed.
#pragma once

#include <string>

#include "frequency/CpufreqController.hpp"

namespace ecluse {

class CpufreqUserspaceController final : public CpufreqController {
 public:
  CpufreqUserspaceController(SysfsFiles files, std::string driver);
  [[nodiscard]] std::string describe() const override;

 private:
  void apply_cpu(const FrequencyTarget& target, int cpu) override;
  /** The highest of scaling_available_frequencies not above khz (acpi-cpufreq has a list). */
  [[nodiscard]] std::uint64_t available_at_most(int cpu, std::uint64_t khz) const;

  std::string driver_;
};

}  // namespace ecluse
