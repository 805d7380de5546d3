// One run at a time per output directory and simulation: a lock file taken at initialize, and
// the partial files of a run that stopped without cleaning removed and named.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/Log.hpp"

namespace ecluse {

/** "<directory>/.<simulation>.ecluse-lock" ("<directory>/.files-<hash of the pattern>.ecluse-lock"
 * for a FileName without {simulation}, whose names are the same for every simulation), created
 * with O_EXCL|O_NOFOLLOW and holding the owner's host, pid, start time and the host's boot id. A
 * live owner makes a second run fail with ECLUSE_IO_ERROR; a dead one on this host (a crash: no
 * such pid, the pid of a process started later, or a host restarted since) is replaced, its
 * partial files removed with a warning. The owner refreshes the lock's time every `beat` (a
 * thread that sleeps between): a lock of another host, whose pid cannot be checked, is taken
 * for a stopped run's when neither it was refreshed nor the run's partial files written for six
 * beats, by the file system's clock (a lock without a beat, from an older Ecluse, is never). An
 * owner whose lock another run took stops refreshing it and leaves it in place. The same
 * process may take it again (two stores of one run in one directory). Released when the owner
 * is destroyed. */
inline constexpr std::chrono::milliseconds kLockBeat{30'000};

class OutputLock {
 public:
  OutputLock(const std::string& directory, const std::string& simulation,
             const std::string& file_pattern, const std::string& store_name, bool sync, Log* log,
             std::chrono::milliseconds beat = kLockBeat);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  bool try_create();
  [[noreturn]] void refuse(const std::string& holder) const;
  void refresh();
  [[nodiscard]] bool still_ours() const;
  void release();

  std::chrono::milliseconds beat_;
  std::string path_;
  std::string store_name_;
  std::string what_;               // what a second run would write the same of, for the refusal
  std::vector<std::string> made_;  // directories this lock made, deepest first
  bool owner_ = false;
  int fd_ = -1;  // the lock file this owner made
  std::mutex mutex_;
  std::condition_variable wake_;
  bool ending_ = false;
  std::thread heartbeat_;  // last: started once the rest is set
};

/** Partial files ("<final>.part") under `directory` whose names fit `file_pattern` (the
 * FileName pattern of a store, {simulation} given, other placeholders any number). */
std::vector<std::string> leftover_parts(const std::string& directory, const std::string& simulation,
                                        const std::string& file_pattern);
/** Files under `directory` named as `file_pattern` names a run's final files (an earlier run's,
 * at initialize), sorted. The lock's owner warns of them, naming a few. */
std::vector<std::string> earlier_outputs(const std::string& directory,
                                         const std::string& simulation,
                                         const std::string& file_pattern);

}  // namespace ecluse
