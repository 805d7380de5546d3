// Liveness through kill(pid, 0): no signal is sent, only the existence check is made. A zombie
// (a process that ended but that its parent has not reaped yet, for a second or two after a
// Ctrl-C under mpiexec) still answers kill(pid, 0): /proc/<pid>/stat says it has ended.
#include "core/Process.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <string>

namespace ecluse {

namespace {

// The state letter of /proc/<pid>/stat: after the command name, which is in parentheses and
// may itself hold spaces and parentheses (hence the last ')').
bool has_ended(std::int64_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;  // no /proc: trust kill(pid, 0)
  const std::size_t close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size()) return false;
  const char state = line[close + 2];
  return state == 'Z' || state == 'X';
}

}  // namespace

bool process_gone(std::int64_t pid) {
  if (pid <= 0) return false;
  if (kill(static_cast<pid_t>(pid), 0) != 0) return errno == ESRCH;
  return has_ended(pid);
}

std::string this_host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

}  // namespace ecluse
