// The userspace governor is preferred where it exists (an exact frequency); clamping the maximum
// is the only lever intel_pstate/amd-pstate leave in active mode.
#include "frequency/FrequencyRegistry.hpp"

#include <sstream>

#include "frequency/CpufreqClampController.hpp"
#include "frequency/CpufreqController.hpp"
#include "frequency/CpufreqUserspaceController.hpp"
#include "frequency/NullFrequencyController.hpp"

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

std::unique_ptr<FrequencyController> make_userspace(const SysfsFiles& files,
                                                    const std::string& driver) {
  return std::make_unique<CpufreqUserspaceController>(files, driver);
}

std::unique_ptr<FrequencyController> make_clamp(const SysfsFiles& files,
                                                const std::string& driver) {
  return std::make_unique<CpufreqClampController>(files, driver);
}

std::unique_ptr<FrequencyController> make_null(const SysfsFiles&, const std::string& driver) {
  return std::make_unique<NullFrequencyController>("chosen for driver " + driver);
}

FrequencyControllerFactory factory(const char* name) {
  for (const auto& [spec, make] : frequency_registry().entries()) {
    if (spec->name == name) return make;
  }
  return nullptr;
}

}  // namespace

std::unique_ptr<FallbackFrequencyController> unusable_frequency_controller(
    const std::string& message, FallbackFrequencyController::Report report) {
  auto controller = std::make_unique<FallbackFrequencyController>(std::make_unique<NoController>(),
                                                                  std::move(report));
  controller->degrade(message);
  return controller;
}

const PluginRegistry<FrequencyControllerFactory>& frequency_registry() {
  static const PluginRegistry<FrequencyControllerFactory> registry(
      frequency_controller_specs(),
      {{"userspace", make_userspace}, {"clamp", make_clamp}, {"null", make_null}});
  return registry;
}

std::unique_ptr<FallbackFrequencyController> make_frequency_controller(
    const SysfsFiles& files, int cpu, FallbackFrequencyController::Report report) {
  std::string driver;
  try {
    driver = trim(files.read(cpufreq_file(cpu, "scaling_driver")));
  } catch (const SysfsError& e) {
    return unusable_frequency_controller(CpufreqController::unavailable_message(e),
                                         std::move(report));
  }
  const auto governors = files.try_read(cpufreq_file(cpu, "scaling_available_governors"));
  const bool userspace = has_word(governors.value_or(""), "userspace");
  std::unique_ptr<FrequencyController> real =
      factory(userspace ? "userspace" : "clamp")(files, driver);
  return std::make_unique<FallbackFrequencyController>(std::move(real), std::move(report));
}

}  // namespace ecluse
