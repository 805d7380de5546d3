// The output lock and the clean-up of partial files left by a run that stopped.
#include "store/OutputLock.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <regex>
#include <system_error>

#include "config/Expression.hpp"
#include "core/Process.hpp"
#include "ecluse/Error.hpp"
#include "store/Hdf5Support.hpp"

namespace ecluse {
namespace {

constexpr std::size_t kListedParts = 5;

// FNV-1a: the same name for the same pattern in every run, whatever the build.
std::string pattern_key(const std::string& pattern) {
  std::uint64_t hash = 14695981039346656037ull;
  for (const unsigned char c : pattern) hash = (hash ^ c) * 1099511628211ull;
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

// Runs of different simulations write different files unless the names leave the simulation
// out: then the lock is the pattern's, so that a second run is refused too.
std::string lock_name(const std::string& simulation, const std::string& pattern) {
  if (pattern.empty() || pattern.find("{simulation}") != std::string::npos) return simulation;
  return "files-" + pattern_key(pattern);
}

// Host and pid name the owner for people; its start time and the host's boot make the pid one
// process (a pid is reused: a lock left by a crash would otherwise be taken for the run of an
// unrelated process that got the same pid later).
// The owner refreshes the lock's time every `beat` (seconds; in the lock, so that another run
// judges it by the owner's beat): a lock of another host not refreshed for kStaleBeats beats is
// a stopped run's.
std::string identity(std::chrono::milliseconds beat) {
  const std::int64_t pid = getpid();
  return this_host_name() + "\n" + std::to_string(pid) + "\nstart " +
         std::to_string(process_start_ticks(pid)) + "\nboot " + boot_id() + "\nbeat " +
         std::to_string(beat.count()) + "ms\n";
}

constexpr int kStaleBeats = 6;

struct Holder {
  std::string host;
  std::int64_t pid = 0;
  std::uint64_t start = 0;            // 0: not recorded (an older lock) or unknown
  std::string boot;                   // "": not recorded
  std::chrono::milliseconds beat{0};  // 0: not refreshed (an older lock)
};

std::uint64_t number_or_zero(const std::string& text) {
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    return 0;
  }
}

Holder parse_holder(const std::string& text) {
  Holder holder;
  const std::vector<ListItem> lines = split_list(text, '\n');
  holder.host = lines[0].text;
  if (lines.size() > 1) holder.pid = static_cast<std::int64_t>(number_or_zero(lines[1].text));
  for (std::size_t i = 2; i < lines.size(); ++i) {
    const std::string& line = lines[i].text;
    if (line.rfind("start ", 0) == 0) holder.start = number_or_zero(line.substr(6));
    if (line.rfind("boot ", 0) == 0) holder.boot = line.substr(5);
    if (line.rfind("beat ", 0) == 0) {
      holder.beat = std::chrono::milliseconds(number_or_zero(line.substr(5)));
    }
  }
  return holder;
}

// Where a lock is and what its run writes.
struct LockPlace {
  std::string path, directory, simulation, pattern;
};

std::int64_t mtime_of(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_mtim.tv_sec : 0;
}

// The file system's time now, which sets the times of its files (an NFS server's clock, not this
// host's): the time of a probe file made and removed in `directory`; this host's clock if it
// cannot be made.
std::int64_t file_system_now(const std::string& directory) {
  const std::string probe =
      directory + "/.ecluse-clock-" + this_host_name() + "-" + std::to_string(getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  struct stat st {};
  const bool made = fd >= 0 && ::fstat(fd, &st) == 0;
  if (fd >= 0) {
    ::close(fd);
    ::unlink(probe.c_str());
  }
  if (made) return st.st_mtim.tv_sec;
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// When a partial file of the run was last written (0: none): a run that writes is alive,
// whatever its lock's time says (a heartbeat that failed).
std::int64_t newest_part(const LockPlace& place) {
  std::int64_t newest = 0;
  for (const std::string& part : leftover_parts(place.directory, place.simulation, place.pattern)) {
    newest = std::max(newest, mtime_of(place.directory + "/" + part));
  }
  return newest;
}

// A holder on another host: stopped when neither its lock was refreshed nor its partial files
// written for kStaleBeats of its beats, by the file system's clock.
std::optional<std::string> stopped_elsewhere(const Holder& holder, const LockPlace& place) {
  if (holder.beat.count() <= 0) return std::nullopt;  // an older lock: never refreshed
  const std::int64_t stale =
      std::chrono::duration_cast<std::chrono::seconds>(kStaleBeats * holder.beat).count();
  const std::int64_t now = file_system_now(place.directory);
  const std::int64_t age = now - mtime_of(place.path);
  if (age <= stale || now - newest_part(place) <= stale) return std::nullopt;
  return ": its lock was last refreshed " + std::to_string(age) + " s ago";
}

// Whether the owner of a lock is known to have stopped, with what says so beyond its pid's
// absence ("" when that absence is all).
std::optional<std::string> stopped(const Holder& holder, const LockPlace& place) {
  if (holder.host != this_host_name()) return stopped_elsewhere(holder, place);
  if (const std::string boot = boot_id();
      !holder.boot.empty() && !boot.empty() && holder.boot != boot) {
    return ": the host has restarted since";
  }
  if (process_gone(holder.pid)) return "";
  const std::uint64_t start = process_start_ticks(holder.pid);
  if (holder.start != 0 && start != 0 && start != holder.start) {
    return ": its pid is another process's now";
  }
  return std::nullopt;
}

std::string read_holder(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return "";
  char buffer[512] = {};
  const ssize_t n = ::read(fd, buffer, sizeof buffer - 1);
  ::close(fd);
  return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : "";
}

std::string describe(const Holder& holder) {
  return "pid " + std::to_string(holder.pid) + " on host '" + holder.host + "'";
}

std::string regex_escaped(const std::string& text) {
  static const std::string special = R"(\^$.|?*+()[]{}/)";
  std::string out;
  for (char c : text) {
    if (special.find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

// The FileName pattern as a regular expression: {simulation} literal, numbers elsewhere, then
// `suffix` (a regular expression).
std::regex name_regex(const std::string& pattern, const std::string& simulation,
                      const std::string& suffix) {
  std::string expression;
  for (std::size_t i = 0; i < pattern.size();) {
    const auto close = pattern[i] == '{' ? pattern.find('}', i) : std::string::npos;
    if (close == std::string::npos) {
      expression += regex_escaped(std::string(1, pattern[i++]));
      continue;
    }
    const std::string key = pattern.substr(i + 1, close - i - 1);
    expression += key == "simulation" ? regex_escaped(simulation) : "[0-9]+";
    i = close + 1;
  }
  return std::regex(expression + suffix);
}

std::string listed(const std::vector<std::string>& parts) {
  std::string text;
  for (std::size_t i = 0; i < parts.size() && i < kListedParts; ++i) {
    text += (i ? ", '" : "'") + parts[i] + "'";
  }
  if (parts.size() > kListedParts) {
    text += " and " + std::to_string(parts.size() - kListedParts) + " more";
  }
  return text;
}

// Regular files under `directory` (recursively) whose relative paths match `wanted`, sorted.
std::vector<std::string> files_named(const std::string& directory, const std::regex& wanted) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::error_code error;
  fs::recursive_directory_iterator it(directory, fs::directory_options::skip_permission_denied,
                                      error);
  for (; !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (!it->is_regular_file(error)) continue;
    const std::string relative = fs::relative(it->path(), directory, error).string();
    if (std::regex_match(relative, wanted)) files.push_back(relative);
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Not removed (they may be results the user keeps), but named: a run with fewer iterations or
// processes than the one before it otherwise leaves files that look like its own.
void warn_earlier_outputs(const std::string& directory, const std::string& simulation,
                          const std::string& pattern, const std::string& store, Log* log) {
  const std::vector<std::string> earlier = earlier_outputs(directory, simulation, pattern);
  if (earlier.empty() || log == nullptr) return;
  log->warning("store '" + store + "': '" + directory + "' already holds " +
               std::to_string(earlier.size()) + " file(s) named as this run names its own (" +
               listed(earlier) +
               "): from an earlier run, or from the run this one restarts. This run replaces "
               "those it writes again and leaves the others beside its own; if they are not "
               "wanted there, remove them first or give this run another FilesPath.");
}

void remove_leftovers(const std::string& directory, const std::string& simulation,
                      const std::string& pattern, const std::string& store, Log* log) {
  const std::vector<std::string> parts = leftover_parts(directory, simulation, pattern);
  if (parts.empty()) return;
  for (const std::string& part : parts) std::filesystem::remove(directory + "/" + part);
  if (log == nullptr) return;
  log->warning("store '" + store + "': removed " + std::to_string(parts.size()) +
               " partial file(s) in '" + directory +
               "' left by a run of the same simulation that stopped before finishing them: " +
               listed(parts));
}

// Deepest first: the directories ensure_output_directory is about to make.
std::vector<std::string> missing_directories(const std::string& directory) {
  std::vector<std::string> missing;
  std::error_code error;
  for (std::filesystem::path p(directory); !p.empty() && p != p.root_path(); p = p.parent_path()) {
    if (std::filesystem::exists(p, error) || error) break;
    missing.push_back(p.string());
  }
  return missing;
}

}  // namespace

std::vector<std::string> leftover_parts(const std::string& directory, const std::string& simulation,
                                        const std::string& file_pattern) {
  return files_named(directory, name_regex(file_pattern, simulation, R"(\.part)"));
}

std::vector<std::string> earlier_outputs(const std::string& directory,
                                         const std::string& simulation,
                                         const std::string& file_pattern) {
  return files_named(directory, name_regex(file_pattern, simulation, ""));
}

OutputLock::OutputLock(const std::string& directory, const std::string& simulation,
                       const std::string& file_pattern, const std::string& store_name, bool sync,
                       Log* log, std::chrono::milliseconds beat)
    : beat_(beat),
      path_(directory + "/." + lock_name(simulation, file_pattern) + ".ecluse-lock"),
      store_name_(store_name),
      what_(lock_name(simulation, file_pattern) == simulation
                ? "the same simulation"
                : "files of the same names (FileName '" + file_pattern + "', without " +
                      "{simulation})"),
      made_(missing_directories(directory)) {
  ensure_output_directory(directory, store_name, sync);
  for (int attempt = 0; attempt < 2 && !owner_; ++attempt) {
    if (try_create()) break;
    const std::string holder = read_holder(path_);
    const Holder h = parse_holder(holder);
    if (h.host == this_host_name() && h.pid == getpid()) return;  // another store of this run
    const std::optional<std::string> ended =
        stopped(h, {path_, directory, simulation, file_pattern});
    if (attempt == 1 || !ended) refuse(holder);
    ::unlink(path_.c_str());  // its owner is gone: a crash
    if (log)
      log->warning("store '" + store_name + "': replaced the lock '" + path_ +
                   "' of a run that stopped (" + describe(h) + *ended + ")");
  }
  try {
    remove_leftovers(directory, simulation, file_pattern, store_name, log);
    warn_earlier_outputs(directory, simulation, file_pattern, store_name, log);
    if (owner_) heartbeat_ = std::thread([this] { refresh(); });
  } catch (...) {
    release();  // the destructor does not run: a lock left here would refuse the next run
    throw;
  }
}

// Whether the lock file under path_ is still the one this owner made (another run may have
// taken it for a stopped run's: a suspended job, a heartbeat that failed).
bool OutputLock::still_ours() const {
  struct stat mine {
  }, named{};
  return fd_ >= 0 && ::fstat(fd_, &mine) == 0 && ::lstat(path_.c_str(), &named) == 0 &&
         mine.st_ino == named.st_ino && mine.st_dev == named.st_dev;
}

// Sets the lock's time every beat until the owner is destroyed, outside the mutex (a hung file
// system must not hold the destructor). A failure is not fatal: the lock may then be judged
// stale from another host, never from this one; a lock another run took is left alone.
void OutputLock::refresh() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, beat_, [this] { return ending_; })) {
    lock.unlock();
    const bool ours = still_ours();
    if (ours) ::futimens(fd_, nullptr);
    lock.lock();
    if (!ours) return;
  }
}

void OutputLock::release() {
  if (still_ours()) ::unlink(path_.c_str());
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

// A run that wrote nothing leaves no trace: the directories its lock made are removed when
// empty (rmdir refuses a directory that holds anything).
OutputLock::~OutputLock() {
  if (!owner_) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ending_ = true;
  }
  wake_.notify_all();
  if (heartbeat_.joinable()) heartbeat_.join();
  release();
  for (const std::string& directory : made_) {
    if (::rmdir(directory.c_str()) != 0) break;
  }
}

bool OutputLock::try_create() {
  const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0 && errno == EEXIST) return false;
  if (fd < 0) {
    throw Error(ECLUSE_IO_ERROR, "store '" + store_name_ + "': cannot create the lock file '" +
                                     path_ + "': " + std::strerror(errno) +
                                     ". Fix: make that directory writable or change FilesPath");
  }
  const std::string text = identity(beat_);
  const ssize_t wrote = ::write(fd, text.data(), text.size());
  const int error = wrote < 0 ? errno : ENOSPC;  // a short write: the file system is full
  if (wrote != static_cast<ssize_t>(text.size())) {
    ::close(fd);
    ::unlink(path_.c_str());  // a lock naming no one would read as another run's
    throw Error(ECLUSE_IO_ERROR, "store '" + store_name_ + "': cannot write the lock file '" +
                                     path_ + "': " + std::strerror(error) +
                                     ". Fix: free space on that file system (or quota), or "
                                     "change FilesPath");
  }
  fd_ = fd;  // kept open: the heartbeat refreshes it and checks it is still the lock
  owner_ = true;
  return true;
}

void OutputLock::refuse(const std::string& holder) const {
  const Holder h = parse_holder(holder);
  throw Error(ECLUSE_IO_ERROR,
              "store '" + store_name_ + "': another run (" + describe(h) + ") writes " + what_ +
                  " into this directory (lock file '" + path_ +
                  "'). Fix: wait for it to end, give this run another FilesPath or simulation "
                  "name, or remove the lock file if that run is no longer alive");
}

}  // namespace ecluse
