// The node's CPU time from the first line of /proc/stat, split the way the utilization model
// needs it: busy, idle, and steal kept apart (time the hypervisor gave to someone else).
#pragma once

#include <cstdint>
#include <string>

#include "core/SysfsFiles.hpp"

namespace ecluse {

/** Cumulative ticks (USER_HZ) of all CPUs since boot. */
struct CpuTimes {
  std::uint64_t busy = 0;   // user + nice + system + irq + softirq (guest is inside user)
  std::uint64_t idle = 0;   // idle + iowait
  std::uint64_t steal = 0;  // not ours to power: reported, kept out of u

  /** Parses the "cpu " line of /proc/stat; throws ecluse::Error if absent or malformed. */
  static CpuTimes parse(const std::string& proc_stat);
  /** parse of `files`' /proc/stat; throws SysfsError when unreadable, ecluse::Error if bad. */
  static CpuTimes read(const SysfsFiles& files);
  /** Utilization between two snapshots: busy / (busy + idle), 0 when no tick elapsed. */
  static double utilization(const CpuTimes& before, const CpuTimes& after);
};

}  // namespace ecluse
