// The userspace governor is preferred where it exists (an exact frequency); clamping the maximum
// is the only lever intel_pstate/amd-pstate leave in active mode.
#include "frequency/FrequencyRegistry.hpp"

#include <sstream>

#include "frequency/CpufreqClampController.hpp"
#include "frequency/CpufreqController.hpp"
#include "frequency/CpufreqUserspaceController.hpp"

namespace ecluse {
namespace {

bool has_word(const std::string& text, const std::string& word) {
  std::istringstream in(text);
  for (std::string item; in >> item;) {
    if (item == word) return true;
  }
  return false;
}

class NoController final : public FrequencyController {
 public:
  [[nodiscard]] std::string describe() const override { return "none"; }
  void apply(const FrequencyTarget&, const std::vector<int>&) override {}
  void restore() override {}
};

std::unique_ptr<FallbackFrequencyController> unsupported(const std::string& message,
                                                         FallbackFrequencyController::Report r) {
  auto controller =
      std::make_unique<FallbackFrequencyController>(std::make_unique<NoController>(), std::move(r));
  controller->degrade(message);
  return controller;
}

}  // namespace

const std::vector<FrequencyControllerKind>& frequency_controller_kinds() {
  static const std::vector<FrequencyControllerKind> kinds = {
      {"userspace",
       "cpufreq userspace governor + scaling_setspeed (acpi-cpufreq, "
       "intel_cpufreq, cppc_cpufreq, ...): an exact frequency per CPU."},
      {"clamp",
       "scaling_max_freq lowered to the target (intel_pstate, amd-pstate in active "
       "mode, which have no userspace governor)."},
      {"null",
       "Changes nothing and records what it would have done (no permission, no "
       "cpufreq, or frequency control not requested)."},
  };
  return kinds;
}

std::unique_ptr<FallbackFrequencyController> make_frequency_controller(
    const SysfsFiles& files, int cpu, FallbackFrequencyController::Report report) {
  std::string driver;
  try {
    driver = trim(files.read(cpufreq_file(cpu, "scaling_driver")));
  } catch (const SysfsError& e) {
    return unsupported(CpufreqController::unavailable_message(e), std::move(report));
  }
  const auto governors = files.try_read(cpufreq_file(cpu, "scaling_available_governors"));
  std::unique_ptr<FrequencyController> real;
  if (has_word(governors.value_or(""), "userspace")) {
    real = std::make_unique<CpufreqUserspaceController>(files, driver);
  } else {
    real = std::make_unique<CpufreqClampController>(files, driver);
  }
  return std::make_unique<FallbackFrequencyController>(std::move(real), std::move(report));
}

}  // namespace ecluse
