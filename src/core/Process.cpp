// Liveness through kill(pid, 0): no signal is sent, only the existence check is made.
#include "core/Process.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>

namespace ecluse {

bool process_gone(std::int64_t pid) {
  return pid > 0 && kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

std::string this_host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

}  // namespace ecluse
