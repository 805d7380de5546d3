// Probing opens each source for real (a RAPL tree that exists but cannot be read is no source),
// and the model ends the list, so a probe always returns a source.
#include "energy/EnergyRegistry.hpp"

#include "ecluse/Error.hpp"
#include "energy/ModelSource.hpp"
#include "energy/PmCountersSource.hpp"
#include "energy/RaplSource.hpp"

namespace ecluse {
namespace {

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

std::string skip_line(const std::string& name, const std::string& reason) {
  const bool prefixed = reason.rfind(name + ": ", 0) == 0;
  return prefixed ? reason : name + ": " + reason;
}

}  // namespace

const PluginRegistry<EnergySourceOpen>& energy_registry() {
  static const PluginRegistry<EnergySourceOpen> registry(energy_source_specs(),
                                                         {{"pm_counters", open_pm_counters},
                                                          {"rapl", open_rapl},
                                                          {"nvml", open_nvml},
                                                          {"model", open_model}});
  return registry;
}

std::unique_ptr<EnergySource> open_energy_source(const PluginSpec& spec,
                                                 const ProbeContext& context) {
  const auto* entry = energy_registry().find(spec);
  if (!entry || !entry->make) {
    throw Error(ECLUSE_IO_ERROR,
                spec.name + ": " + (spec.not_built.empty() ? "unknown source" : spec.not_built));
  }
  return entry->make(context);
}

ProbeResult probe_energy_source(const ProbeContext& context) {
  ProbeResult result;
  for (const auto& [spec, open] : energy_registry().entries()) {
    if (!open) {
      result.skipped.push_back(skip_line(spec->name, spec->not_built));
      continue;
    }
    try {
      result.source = open(context);
      return result;
    } catch (const Error& e) {
      result.skipped.push_back(skip_line(spec->name, e.what()));
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
