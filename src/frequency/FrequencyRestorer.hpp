// The process-wide list of cpufreq files to put back, kept in fixed buffers so that a signal
// handler (SIGINT, SIGTERM, a crash) can restore them with open/write/close only, then die of
// the signal.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <string>

namespace ecluse {

class FrequencyRestorer {
 public:
  static constexpr std::size_t kMaxEntries = 1024;
  static constexpr std::size_t kPathSize = 512;
  static constexpr std::size_t kValueSize = 64;

  static FrequencyRestorer& instance();
  /** A fresh owner id for one set of saved settings. */
  int new_owner();
  /** Remembers that `path` must get `value` back on a fatal signal; puts the handler of
   * SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGFPE and SIGILL in front of
   * the program's own action (again if the
   * program replaced it since): it restores, then passes the signal on to that action (an ignored
   * signal restores nothing). Throws ecluse::Error when the value does not fit. */
  void add(int owner, const std::string& path, const std::string& value);
  /** Forgets the owner's entries (restored the normal way). */
  void remove(int owner);
  /** Entries currently remembered. */
  [[nodiscard]] std::size_t size() const;
  /** Writes every remembered value back, newest first; async-signal-safe. */
  void restore_all() noexcept;
  /** How many times restore_all ran: a lowering made before the last one is undone (a fault
   * the program recovered from). */
  [[nodiscard]] unsigned restores() const noexcept { return restores_.load(); }

 private:
  struct Entry {
    char path[kPathSize];
    char value[kValueSize];
    std::size_t value_size;
    std::atomic<int> owner;  // 0: free
  };

  FrequencyRestorer() = default;
  void install_handlers();

  Entry entries_[kMaxEntries] = {};
  std::atomic<std::size_t> count_{0};
  std::atomic<int> next_owner_{1};
  std::atomic<unsigned> restores_{0};  // lock-free: counted in the signal handler
  mutable std::mutex mutex_;           // serializes add/remove; never taken by the signal handler
};

}  // namespace ecluse
