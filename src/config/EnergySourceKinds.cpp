// The table of energy sources; "auto" is not a source but the probe over this list.
#include "config/EnergySourceKinds.hpp"

namespace ecluse {
namespace {

const OptionSpec kRootOption{"root",
                             "Directory prefix under which /sys and /proc are read (tests use "
                             "fake trees).",
                             "/",
                             {},
                             OptionType::Path};

std::vector<OptionSpec> model_options() {
  return {kRootOption,
          {"calibration",
           "Calibration file: sections [host PATTERN] or [cpu PATTERN] with id, idle_watts, "
           "max_watts; the first section matching the host name or CPU model is used.",
           "",
           {},
           OptionType::Path},
          {"idle_watts",
           "Node power at zero utilization (overrides the file).",
           "",
           {},
           OptionType::Number},
          {"max_watts",
           "Node power with every core busy (overrides the file).",
           "",
           {},
           OptionType::Number},
          {"calibration_id",
           "Label of explicit idle_watts/max_watts in the report.",
           "explicit",
           {},
           OptionType::Text}};
}

std::vector<PluginSpec> build_specs() {
  return {
      {"pm_counters",
       "Cray/HPE node power controller: node, CPU, memory and accelerator energy in joules "
       "(measured).",
       {kRootOption},
       ""},
      {"rapl",
       "RAPL through powercap: packages and DRAM in microjoules (measured-partial: the rest of "
       "the node is not seen); psys, core and uncore are reported but not summed.",
       {kRootOption},
       ""},
      {"nvml",
       "NVIDIA GPUs through libnvidia-ml.so.1 loaded at run time (measured-partial: GPUs only).",
       {},
       ""},
      {"model",
       "P(u) = P_idle + (P_max - P_idle) * u from /proc/stat (modelled, labelled with its "
       "calibration).",
       model_options(), ""},
  };
}

}  // namespace

const std::vector<PluginSpec>& energy_source_specs() {
  static const std::vector<PluginSpec> specs = build_specs();
  return specs;
}

const PluginSpec* find_energy_source_spec(std::string_view name) {
  return find_plugin(energy_source_specs(), name);
}

}  // namespace ecluse
