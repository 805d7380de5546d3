// The factory of each frequency controller of config/FrequencyControllerKinds (the frequency
// family of the one plugin registry pattern), and the choice of the one a CPU's cpufreq driver
// supports (always wrapped so that a refusal degrades to null).
#pragma once

#include <memory>
#include <string>

#include "config/FrequencyControllerKinds.hpp"
#include "config/PluginRegistry.hpp"
#include "core/SysfsFiles.hpp"
#include "frequency/FallbackFrequencyController.hpp"

namespace ecluse {

/** Makes a controller for the cpufreq driver `driver` of the CPUs under files' root. */
using FrequencyControllerFactory =
    std::unique_ptr<FrequencyController> (*)(const SysfsFiles& files, const std::string& driver);

/** userspace, clamp, null, each with its factory. */
const PluginRegistry<FrequencyControllerFactory>& frequency_registry();

/** The controller for the driver of `cpu` under files' root: userspace when the governor
 * exists, else clamping, else null (reported through `report`). */
std::unique_ptr<FallbackFrequencyController> make_frequency_controller(
    const SysfsFiles& files, int cpu, FallbackFrequencyController::Report report = {});

/** The null controller from the start, for `message` (reported through `report`). */
std::unique_ptr<FallbackFrequencyController> unusable_frequency_controller(
    const std::string& message, FallbackFrequencyController::Report report = {});

}  // namespace ecluse
