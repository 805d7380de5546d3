// Per-role energy on a shared node (simulation cores vs dedicated cores): the node's energy
// split in proportion to each role's CPU time, labelled "apportioned" since nobody measured it.
#pragma once

#include <string>
#include <vector>

#include "energy/EnergySource.hpp"

namespace ecluse {

/** CPU time one role spent on the node during the interval. */
struct RoleCpuTime {
  std::string role;  // "simulation", "dedicated-core", ...
  double cpu_seconds = 0;
};

/** A role's share of the node's energy, keeping the labels of the figure it came from. */
struct RoleEnergy {
  std::string role;
  double joules = 0;
  std::string source;
  EnergyQuality quality = EnergyQuality::Modelled;
  std::string calibration;
  std::string label = "apportioned";
};

class EnergyApportioner {
 public:
  /** Splits node_joules (measured or modelled as `labels` says) by CPU time; evenly when no
   * role used any CPU time. Throws ecluse::Error on negative CPU times. */
  static std::vector<RoleEnergy> split(double node_joules, const EnergyReading& labels,
                                       const std::vector<RoleCpuTime>& roles);
  /** This process's user + system CPU time (getrusage). */
  static double process_cpu_seconds();
};

}  // namespace ecluse
