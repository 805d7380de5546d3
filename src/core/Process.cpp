// Liveness through kill(pid, 0): no signal is sent, only the existence check is made. A zombie
// (a process that ended but that its parent has not reaped yet, for a second or two after a
// Ctrl-C under mpiexec) still answers kill(pid, 0): /proc/<pid>/stat says it has ended.
#include "core/Process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace ecluse {

namespace {

// The state letter of /proc/<pid>/stat: after the command name, which is in parentheses and
// may itself hold spaces and parentheses (hence the last ')'). No heap allocation: a client
// waiting for room checks its server this way, and its steady state allocates nothing.
bool has_ended(std::int64_t pid) {
  char path[48];
  std::snprintf(path, sizeof path, "/proc/%lld/stat", static_cast<long long>(pid));
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;  // no /proc: trust kill(pid, 0)
  char line[512];
  const ssize_t n = ::read(fd, line, sizeof line - 1);
  ::close(fd);
  if (n <= 0) return false;
  line[n] = '\0';
  const char* paren = std::strrchr(line, ')');
  if (paren == nullptr || paren[1] != ' ') return false;
  return paren[2] == 'Z' || paren[2] == 'X';
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
