// The frequency controllers known to Ecluse, described as data, and the factory that picks the
// one a CPU's cpufreq driver supports (always wrapped so that a refusal degrades to null).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/SysfsFiles.hpp"
#include "frequency/FallbackFrequencyController.hpp"

namespace ecluse {

struct FrequencyControllerKind {
  std::string name;  // "userspace", "clamp", "null"
  std::string description;
};

const std::vector<FrequencyControllerKind>& frequency_controller_kinds();

/** The controller for the driver of `cpu` under files' root: userspace when the governor
 * exists, else clamping, else null (reported through `report`). */
std::unique_ptr<FallbackFrequencyController> make_frequency_controller(
    const SysfsFiles& files, int cpu, FallbackFrequencyController::Report report = {});

}  // namespace ecluse
