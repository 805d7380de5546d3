// /proc/stat fields in order: user nice system idle iowait irq softirq steal guest guest_nice;
// older kernels stop early, missing fields count as zero.
#include "energy/CpuTimes.hpp"

#include <sstream>
#include <vector>

#include "ecluse/Error.hpp"

namespace ecluse {
namespace {

enum Field { User, Nice, System, Idle, Iowait, Irq, Softirq, Steal, FieldCount };

std::vector<std::uint64_t> cpu_fields(const std::string& proc_stat) {
  std::istringstream in(proc_stat);
  std::string label;
  in >> label;
  if (label != "cpu") {
    throw Error(ECLUSE_IO_ERROR, "/proc/stat does not start with the aggregate 'cpu' line");
  }
  std::vector<std::uint64_t> fields(FieldCount, 0);
  for (std::uint64_t& field : fields) {
    if (!(in >> field)) break;
  }
  return fields;
}

}  // namespace

CpuTimes CpuTimes::parse(const std::string& proc_stat) {
  const std::vector<std::uint64_t> f = cpu_fields(proc_stat);
  return {f[User] + f[Nice] + f[System] + f[Irq] + f[Softirq], f[Idle] + f[Iowait], f[Steal]};
}

CpuTimes CpuTimes::read(const SysfsFiles& files) {
  return parse(files.read("/proc/stat"));
}

double CpuTimes::utilization(const CpuTimes& before, const CpuTimes& after) {
  const std::uint64_t busy = after.busy - before.busy;
  const std::uint64_t total = busy + (after.idle - before.idle);
  return total == 0 ? 0.0 : static_cast<double>(busy) / static_cast<double>(total);
}

}  // namespace ecluse
