// P_idle and P_max of the utilization model, with the id every modelled figure carries: from
// explicit values, from a calibration file keyed by host pattern or CPU model, or a default.
#pragma once

#include <string>

#include "core/SysfsFiles.hpp"

namespace ecluse {

struct Calibration {
  std::string id;           // carried by every modelled reading
  double idle_watts = 0;    // node power at u = 0
  double max_watts = 0;     // node power at u = 1
  bool is_default = false;  // true: nobody calibrated this node, figures are rough
  std::string origin;       // where the values came from, for the report
};

/** Values nobody measured on this node, labelled "default-uncalibrated". */
Calibration default_calibration();
/** Values given explicitly (configuration element, calibration run); throws on bad values. */
Calibration explicit_calibration(double idle_watts, double max_watts, const std::string& id);
/** The first section of the file whose host or CPU pattern matches; the default calibration,
 * saying so in `origin`, when none does. Throws ECLUSE_CONFIG_ERROR with file:line. */
Calibration load_calibration(const std::string& file, const std::string& host,
                             const std::string& cpu_model);
/** The host name and CPU model ("model name" of /proc/cpuinfo) under a root prefix. */
std::string host_name(const SysfsFiles& files);
std::string cpu_model(const SysfsFiles& files);

}  // namespace ecluse
