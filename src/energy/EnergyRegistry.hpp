// The energy sources known to Ecluse with their options as data, and the probe that picks the
// best one a node offers: pm_counters, then RAPL, then NVML, then the model (always there).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/SysfsFiles.hpp"
#include "energy/Calibration.hpp"
#include "energy/EnergySource.hpp"
#include "energy/NvmlSource.hpp"

namespace ecluse {

/** An option an energy source accepts, described as data so that tools can list it. */
struct EnergyOptionSpec {
  std::string key;
  std::string description;
  std::string default_value;
};

/** What a probe needs; tests replace open() and the NVML loader. */
struct ProbeContext {
  std::string root = "/";
  Calibration calibration = default_calibration();
  SysfsFiles::OpenFn open;
  std::function<std::optional<NvmlApi>(std::string& reason)> load_nvml = ecluse::load_nvml;
  [[nodiscard]] SysfsFiles files() const { return SysfsFiles(root, open); }
};

/** A source in the registry; open() throws ecluse::Error saying why it is not available. */
struct EnergySourceKind {
  std::string name;
  std::string description;
  std::vector<EnergyOptionSpec> options;
  std::string not_built;  // empty when available
  std::function<std::unique_ptr<EnergySource>(const ProbeContext&)> open;
};

/** Every source, in probe order. */
const std::vector<EnergySourceKind>& energy_source_kinds();
const EnergySourceKind* find_energy_source_kind(std::string_view name);

/** The chosen source, and one line per source tried before it saying why it was skipped. */
struct ProbeResult {
  std::unique_ptr<EnergySource> source;
  std::vector<std::string> skipped;
};

ProbeResult probe_energy_source(const ProbeContext& context);
ProbeResult probe_energy_source(const std::string& root_prefix, const Calibration& calibration);

}  // namespace ecluse
