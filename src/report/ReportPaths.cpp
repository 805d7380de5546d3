// Where the report and the opt-in per-iteration trace go, writing a report file whole, and
// starting the trace on each rank.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/Process.hpp"
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
  if (!config.report.claimed.empty()) return config.report.claimed;
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

namespace {

std::string claim_file(const std::string& report) {
  return report + ".running";
}

std::string claim_text() {
  return this_host_name() + " " + std::to_string(::getpid()) + "\n";
}

// "<host> <pid>" of the run that holds the claim; a claim of a process gone from this host is
// stale (a run killed before its end), one of another host is taken as alive.
bool claim_is_alive(const std::string& claim) {
  std::ifstream in(claim);
  std::string host;
  std::int64_t pid = -1;
  if (!(in >> host >> pid)) return false;  // being written, or damaged: not a live claim
  if (host != this_host_name()) return true;
  return pid != ::getpid() && !process_gone(pid);  // this process's: an earlier initialize
}

std::string with_pid(const std::string& report) {
  const std::string pid = std::to_string(::getpid());
  if (report.size() > 5 && report.ends_with(".json")) {
    return report.substr(0, report.size() - 5) + "." + pid + ".json";
  }
  return report + "." + pid;
}

// O_EXCL: of two runs starting at once, one takes it.
bool take_claim(const std::string& claim) {
  const int fd = ::open(claim.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  const bool ok = write_all(fd, claim_text());
  ::close(fd);
  return ok;
}

}  // namespace

std::string claim_report_path(const Config& config, Log& log) {
  try {
    const std::string path = report_path(config);
    if (path.empty()) return "";
    const std::string claim = claim_file(path);
    if (!take_claim(claim)) {
      if (claim_is_alive(claim)) {
        std::ifstream in(claim);
        std::string owner;
        std::getline(in, owner);
        const std::string own = with_pid(path);
        log.warning("another run (" + owner + ", host and pid in " + claim +
                    ") writes its report to " + path + " at this time: this run's report goes to " +
                    own +
                    " (runs of one simulation started at once in one directory; give each its "
                    "own with ECLUSE_REPORT to choose the names).");
        return own;
      }
      write_file_whole(claim, claim_text());  // stale: its run ended without removing it
    }
    retire_previous_report(config, log);
    return path;
  } catch (const std::exception& e) {
    log.warning(std::string("the report's path could not be claimed: ") + e.what());
    return report_path(config);
  }
}

void release_report_claim(const std::string& report) noexcept {
  if (report.empty()) return;
  try {
    const std::string claim = claim_file(report);
    std::ifstream in(claim);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text == claim_text()) std::remove(claim.c_str());
  } catch (...) {  // a destructor's: the next run on this host finds the claim stale
  }
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
