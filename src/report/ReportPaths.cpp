// Where the report and the opt-in per-iteration trace go, writing a report file whole, and
// starting the trace on each rank.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "report/RunReport.hpp"

namespace ecluse {

namespace {

// Replaces every `key` once, searching after each replacement (a value holding the key must
// not loop).
std::string replaced(std::string text, const std::string& key, const std::string& value) {
  for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size())) {
    text.replace(at, key.size(), value);
  }
  return text;
}

bool write_all(int fd, const std::string& text) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

// The launcher may kill a process at any moment (when another process exits): the text is
// written into an unnamed file (O_TMPFILE) that gets a name only when complete, just before
// the rename, so that a kill leaves no partial file (but in that window of two system calls).
// File systems without O_TMPFILE get a named temporary file.
bool write_file_whole(const std::string& path, const std::string& text) {
  const std::string part = path + "." + std::to_string(::getpid()) + ".part";
  const auto directory = std::filesystem::path(path).parent_path();
  int fd =
      ::open(directory.empty() ? "." : directory.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  const bool unnamed = fd >= 0;
  if (!unnamed) fd = ::open(part.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666);
  if (fd < 0) return false;
  bool ok = write_all(fd, text);
  if (ok && unnamed) {
    const std::string self = "/proc/self/fd/" + std::to_string(fd);
    ok = ::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, part.c_str(), AT_SYMLINK_FOLLOW) == 0;
  }
  int error = ok ? 0 : errno;
  if (::close(fd) != 0 && ok) error = errno, ok = false;
  if (ok && std::rename(part.c_str(), path.c_str()) == 0) return true;
  if (ok) error = errno;
  std::remove(part.c_str());
  errno = error;  // why, for the caller's message
  return false;
}

std::string report_path(const Config& config) {
  const char* env = std::getenv("ECLUSE_REPORT");
  const std::string path = env && *env ? env : config.report.file;
  if (path == "none" || path.empty()) return "";
  return replaced(path, "{simulation}", config.simulation);
}

namespace {

// Said at initialize rather than found at finalize, after the whole run: the report is what
// `ecluse run` and `ecluse advise --from-report` read.
std::string report_directory_problem(const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  const std::string directory = parent.empty() ? "." : parent.string();
  std::error_code error;
  if (!std::filesystem::is_directory(directory, error)) {
    return "its directory " + directory + " does not exist; create it";
  }
  if (::access(directory.c_str(), W_OK | X_OK) != 0) {
    return "its directory " + directory + " is not writable (" + std::strerror(errno) +
           "); make it writable";
  }
  return "";
}

}  // namespace

void retire_previous_report(const Config& config, Log& log) {
  const std::string path = report_path(config);
  if (path.empty()) return;
  if (const std::string problem = report_directory_problem(path); !problem.empty()) {
    const char* env = std::getenv("ECLUSE_REPORT");
    log.warning("the run report cannot be written to " + path + " at finalize: " + problem +
                ", or " +
                (env && *env ? "set ECLUSE_REPORT to another file"
                             : "change <report file> (now '" + config.report.file +
                                   "'), or set ECLUSE_REPORT to another file (none: no report)") +
                ".");
    return;
  }
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return;
  keep_earlier_report_for_launcher(path);
  const std::string previous = path + ".previous";
  std::filesystem::rename(path, previous, error);
  if (!error) return;
  log.warning("the report " + path + " of an earlier run could not be moved to " + previous + " (" +
              error.message() + "); it stays until this run's replaces it at finalize");
}

std::string trace_pattern(const Config& config) {
  const char* env = std::getenv("ECLUSE_TRACE");
  std::string path = env && *env ? env : config.report.trace;
  if (path == "none" || path.empty()) return "";
  path = replaced(path, "{simulation}", config.simulation);
  if (path.find("{rank}") == std::string::npos) path += ".{rank}";
  std::error_code ignored;  // a relative path stays relative when the directory is unknown
  const auto absolute = std::filesystem::absolute(path, ignored);
  return absolute.empty() ? path : absolute.string();
}

void start_trace(Accounting& accounting, const Config& config, int rank, Role role, Log& log) {
  const std::string pattern = trace_pattern(config);
  if (pattern.empty()) return;
  const std::string path = replaced(pattern, "{rank}", std::to_string(rank));
  const std::string header = "ecluse-trace/1 simulation=" + config.simulation +
                             " rank=" + std::to_string(rank) +
                             " role=" + std::string(name_of(role));
  auto trace =
      std::make_unique<TraceFile>(path, header, [&log](const std::string& m) { log.warning(m); });
  if (trace->open()) accounting.trace_to(std::move(trace));
}

}  // namespace ecluse
