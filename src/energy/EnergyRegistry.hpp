// The function that opens each energy source of config/EnergySourceKinds (the energy family of
// the one plugin registry pattern), and the probe that picks the best source a node offers:
// pm_counters, then RAPL, then NVML, then the model (always there).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/EnergySourceKinds.hpp"
#include "config/PluginRegistry.hpp"
#include "core/SysfsFiles.hpp"
#include "energy/Calibration.hpp"
#include "energy/EnergySource.hpp"
#include "energy/NvmlSource.hpp"

namespace ecluse {

/** What a probe needs; tests replace open() and the NVML loader. */
struct ProbeContext {
  std::string root = "/";
  Calibration calibration = default_calibration();
  SysfsFiles::OpenFn open;
  std::function<std::optional<NvmlApi>(std::string& reason)> load_nvml = ecluse::load_nvml;
  [[nodiscard]] SysfsFiles files() const { return SysfsFiles(root, open); }
};

/** Opens a source; throws ecluse::Error saying why it is not available. */
using EnergySourceOpen = std::unique_ptr<EnergySource> (*)(const ProbeContext&);

/** Every source of energy_source_specs() with the function that opens it, in probe order. */
const PluginRegistry<EnergySourceOpen>& energy_registry();

/** Opens the source of `spec` (an entry of energy_source_specs()). */
std::unique_ptr<EnergySource> open_energy_source(const PluginSpec& spec,
                                                 const ProbeContext& context);

/** The chosen source, and one line per source tried before it saying why it was skipped. */
struct ProbeResult {
  std::unique_ptr<EnergySource> source;
  std::vector<std::string> skipped;
};

ProbeResult probe_energy_source(const ProbeContext& context);
ProbeResult probe_energy_source(const std::string& root_prefix, const Calibration& calibration);

}  // namespace ecluse
