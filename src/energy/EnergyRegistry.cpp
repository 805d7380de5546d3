// Probing opens each source for real (a RAPL tree that exists but cannot be read is no source),
// and the model ends the list, so a probe always returns a source.
#include "energy/EnergyRegistry.hpp"

#include <algorithm>

#include "ecluse/Error.hpp"
#include "energy/ModelSource.hpp"
#include "energy/PmCountersSource.hpp"
#include "energy/RaplSource.hpp"

namespace ecluse {
namespace {

const EnergyOptionSpec kRootOption{
    "root", "Directory prefix under which /sys and /proc are read (tests use fake trees).", "/"};

std::unique_ptr<EnergySource> open_pm_counters(const ProbeContext& context) {
  return std::make_unique<PmCountersSource>(context.files());
}

std::unique_ptr<EnergySource> open_rapl(const ProbeContext& context) {
  return std::make_unique<RaplSource>(context.files());
}

std::unique_ptr<EnergySource> open_nvml(const ProbeContext& context) {
  std::string reason;
  std::optional<NvmlApi> api = context.load_nvml(reason);
  if (!api) throw Error(ECLUSE_IO_ERROR, reason);
  return std::make_unique<NvmlSource>(std::move(*api));
}

std::unique_ptr<EnergySource> open_model(const ProbeContext& context) {
  return std::make_unique<ModelSource>(context.files(), context.calibration);
}

std::vector<EnergyOptionSpec> model_options() {
  return {kRootOption,
          {"calibration",
           "Calibration file: sections [host PATTERN] or [cpu PATTERN] with id, idle_watts, "
           "max_watts; the first section matching the host name or CPU model is used.",
           ""},
          {"idle_watts", "Node power at zero utilization (overrides the file).", ""},
          {"max_watts", "Node power with every core busy (overrides the file).", ""},
          {"calibration_id", "Label of explicit idle_watts/max_watts in the report.", "explicit"}};
}

std::vector<EnergySourceKind> build_kinds() {
  return {
      {"pm_counters",
       "Cray/HPE node power controller: node, CPU, memory and accelerator energy in joules "
       "(measured).",
       {kRootOption},
       "",
       open_pm_counters},
      {"rapl",
       "RAPL through powercap: packages and DRAM in microjoules (measured-partial: the rest of "
       "the node is not seen); psys, core and uncore are reported but not summed.",
       {kRootOption},
       "",
       open_rapl},
      {"nvml",
       "NVIDIA GPUs through libnvidia-ml.so.1 loaded at run time (measured-partial: GPUs only).",
       {},
       "",
       open_nvml},
      {"model",
       "P(u) = P_idle + (P_max - P_idle) * u from /proc/stat (modelled, labelled with its "
       "calibration).",
       model_options(), "", open_model},
  };
}

std::string skip_line(const std::string& name, const std::string& reason) {
  const bool prefixed = reason.rfind(name + ": ", 0) == 0;
  return prefixed ? reason : name + ": " + reason;
}

}  // namespace

const std::vector<EnergySourceKind>& energy_source_kinds() {
  static const std::vector<EnergySourceKind> kinds = build_kinds();
  return kinds;
}

const EnergySourceKind* find_energy_source_kind(std::string_view name) {
  const auto& kinds = energy_source_kinds();
  auto it = std::find_if(kinds.begin(), kinds.end(),
                         [&](const EnergySourceKind& kind) { return kind.name == name; });
  return it == kinds.end() ? nullptr : &*it;
}

ProbeResult probe_energy_source(const ProbeContext& context) {
  ProbeResult result;
  for (const EnergySourceKind& kind : energy_source_kinds()) {
    if (!kind.not_built.empty()) {
      result.skipped.push_back(skip_line(kind.name, kind.not_built));
      continue;
    }
    try {
      result.source = kind.open(context);
      return result;
    } catch (const Error& e) {
      result.skipped.push_back(skip_line(kind.name, e.what()));
    }
  }
  throw Error(ECLUSE_IO_ERROR, "no energy source, not even the model: " + result.skipped.back());
}

ProbeResult probe_energy_source(const std::string& root_prefix, const Calibration& calibration) {
  ProbeContext context;
  context.root = root_prefix;
  context.calibration = calibration;
  return probe_energy_source(context);
}

}  // namespace ecluse
