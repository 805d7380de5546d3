// The interface every frequency controller implements (cpufreq userspace, scaling_max_freq
// clamping, null), and the error that makes a controller give way to the null controller.
#pragma once

#include <string>
#include <vector>

#include "config/FrequencyPolicy.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {

/** No permission or no support: the run goes on without frequency control. The message is one
 * line saying what failed, which file, and how to fix it. */
class FrequencyUnavailable : public Error {
 public:
  explicit FrequencyUnavailable(const std::string& message) : Error(ECLUSE_IO_ERROR, message) {}
};

class FrequencyController {
 public:
  virtual ~FrequencyController() = default;
  /** e.g. "cpufreq userspace governor (acpi-cpufreq)". */
  [[nodiscard]] virtual std::string describe() const = 0;
  /** Sets the CPUs to the target, saving each value before its first change; call at phase
   * boundaries only. Throws FrequencyUnavailable. */
  virtual void apply(const FrequencyTarget& target, const std::vector<int>& cpus) = 0;
  /** Puts back every saved value; throws ecluse::Error listing the files it could not write. */
  virtual void restore() = 0;
  /** What was done (or, for the null controller, would have been done), for the run report. */
  [[nodiscard]] const std::vector<std::string>& actions() const noexcept { return actions_; }

 protected:
  void record(std::string action) { actions_.push_back(std::move(action)); }

 private:
  std::vector<std::string> actions_;
};

/** /sys/devices/system/cpu/cpu<cpu>/cpufreq/<file> */
std::string cpufreq_file(int cpu, const std::string& file);
/** "2,3" */
std::string cpu_list(const std::vector<int>& cpus);

}  // namespace ecluse
