// Whether a process of this host still exists: the one liveness check of clients and servers.
#pragma once

#include <cstdint>
#include <string>

namespace ecluse {

/** True only when the kernel says there is no process `pid` (kill(pid, 0) fails with ESRCH)
 * or that it has ended and waits to be reaped (a zombie: state Z in /proc/<pid>/stat); an
 * unknown pid (0 or less) or one we may not signal counts as still there. */
bool process_gone(std::int64_t pid);

/** When process `pid` started, in clock ticks since boot (field 22 of /proc/<pid>/stat); 0 when
 * unknown (no such process, no /proc). With the pid it names one process: a pid is reused. */
std::uint64_t process_start_ticks(std::int64_t pid);

/** This boot of this host (/proc/sys/kernel/random/boot_id), "" when unknown: start ticks
 * count from the boot, and pids start again at every boot. */
std::string boot_id();

/** This host's name (gethostname), "unknown" if it cannot be read. */
std::string this_host_name();

}  // namespace ecluse
