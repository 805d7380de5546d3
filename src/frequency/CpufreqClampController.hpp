// intel_pstate and amd-pstate in active mode have no userspace governor: the frequency is
// capped by lowering scaling_max_freq (and scaling_min_freq when it is above the cap).
#pragma once

#include <string>

#include "frequency/CpufreqController.hpp"

namespace ecluse {

class CpufreqClampController final : public CpufreqController {
 public:
  CpufreqClampController(SysfsFiles files, std::string driver);
  [[nodiscard]] std::string describe() const override;

 private:
  void apply_cpu(const FrequencyTarget& target, int cpu) override;

  std::string driver_;
};

}  // namespace ecluse
