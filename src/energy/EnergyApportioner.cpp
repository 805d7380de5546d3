// CPU time is the only per-role quantity every node has; it misses memory and idle power, which
// is why the result is labelled and never presented as measured.
#include "energy/EnergyApportioner.hpp"

#include <sys/resource.h>

#include "ecluse/Error.hpp"

namespace ecluse {
namespace {

double total_cpu(const std::vector<RoleCpuTime>& roles) {
  double total = 0;
  for (const RoleCpuTime& role : roles) {
    if (role.cpu_seconds < 0) {
      throw Error(ECLUSE_ARGUMENT_ERROR, "role '" + role.role + "' has negative CPU time");
    }
    total += role.cpu_seconds;
  }
  return total;
}

double seconds(const timeval& t) {
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
}

}  // namespace

std::vector<RoleEnergy> EnergyApportioner::split(double node_joules, const EnergyReading& labels,
                                                 const std::vector<RoleCpuTime>& roles) {
  const double total = total_cpu(roles);
  std::vector<RoleEnergy> shares;
  for (const RoleCpuTime& role : roles) {
    const double share =
        total > 0 ? role.cpu_seconds / total : 1.0 / static_cast<double>(roles.size());
    shares.push_back({role.role, node_joules * share, labels.source, labels.quality,
                      labels.calibration, "apportioned"});
  }
  return shares;
}

double EnergyApportioner::process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace ecluse
