// What the two cpufreq controllers share: saved values, reading a CPU's hardware range, turning
// a refused write into one line that says which file and how to fix it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/SysfsFiles.hpp"
#include "frequency/FrequencyController.hpp"
#include "frequency/SavedSettings.hpp"

namespace ecluse {

class CpufreqController : public FrequencyController {
 public:
  explicit CpufreqController(SysfsFiles files);
  ~CpufreqController() override;
  CpufreqController(const CpufreqController&) = delete;
  CpufreqController& operator=(const CpufreqController&) = delete;

  void apply(const FrequencyTarget& target, const std::vector<int>& cpus) override;
  void restore() override;

  /** The one line reported when a cpufreq file cannot be read or written. */
  static std::string unavailable_message(const SysfsError& error);

 protected:
  /** Sets one CPU; throws SysfsError, which apply() turns into FrequencyUnavailable. */
  virtual void apply_cpu(const FrequencyTarget& target, int cpu) = 0;
  [[nodiscard]] std::uint64_t read_khz(int cpu, const std::string& file) const;
  [[nodiscard]] std::string read_text(int cpu, const std::string& file) const;
  /** The target for this CPU, clamped into [cpuinfo_min_freq, cpuinfo_max_freq]. */
  [[nodiscard]] std::uint64_t target_khz(const FrequencyTarget& target, int cpu) const;
  void save(int cpu, const std::string& file);
  void write(int cpu, const std::string& file, const std::string& value);

  SavedSettings saved_;
};

}  // namespace ecluse
