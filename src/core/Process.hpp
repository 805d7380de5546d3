// Whether a process of this host still exists: the one liveness check of clients and servers.
#pragma once

#include <cstdint>
#include <string>

namespace ecluse {

/** True only when the kernel says there is no process `pid` (kill(pid, 0) fails with ESRCH)
 * or that it has ended and waits to be reaped (a zombie: state Z in /proc/<pid>/stat); an
 * unknown pid (0 or less) or one we may not signal counts as still there. */
bool process_gone(std::int64_t pid);

/** This host's name (gethostname), "unknown" if it cannot be read. */
std::string this_host_name();

}  // namespace ecluse
