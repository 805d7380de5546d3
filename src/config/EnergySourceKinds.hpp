// The energy sources an <energy source> may name, in probe order, with their options as data;
// the energy layer attaches the function that opens each (EnergyRegistry).
#pragma once

#include <string_view>
#include <vector>

#include "config/PluginSpec.hpp"

namespace ecluse {

/** pm_counters, rapl, nvml, model: the order in which `auto` probes them. */
const std::vector<PluginSpec>& energy_source_specs();
const PluginSpec* find_energy_source_spec(std::string_view name);

}  // namespace ecluse
