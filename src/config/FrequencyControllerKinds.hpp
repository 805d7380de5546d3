// The frequency controllers, as data; none is named in a configuration (the cpufreq driver
// decides), but they are listed with the other plugins and the frequency layer attaches a
// factory to each (FrequencyRegistry).
#pragma once

#include <vector>

#include "config/PluginSpec.hpp"

namespace ecluse {

/** userspace, clamp, null. */
const std::vector<PluginSpec>& frequency_controller_specs();

}  // namespace ecluse
