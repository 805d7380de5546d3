// The table of frequency controllers.
#include "config/FrequencyControllerKinds.hpp"

namespace ecluse {

const std::vector<PluginSpec>& frequency_controller_specs() {
  static const std::vector<PluginSpec> specs = {
      {"userspace",
       "cpufreq userspace governor + scaling_setspeed (acpi-cpufreq, "
       "intel_cpufreq, cppc_cpufreq, ...): an exact frequency per CPU.",
       {},
       ""},
      {"clamp",
       "scaling_max_freq lowered to the target (intel_pstate, amd-pstate in active "
       "mode, which have no userspace governor).",
       {},
       ""},
      {"null",
       "Changes nothing and records what it would have done (no permission, no "
       "cpufreq, or frequency control not requested).",
       {},
       ""},
  };
  return specs;
}

}  // namespace ecluse
