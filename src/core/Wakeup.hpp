// A sleep another thread, or a signal handler, can cut short: the dedicated node server sleeps
// between polls; its store thread wakes it when an iteration is stored, so the credit goes back
// at once, and a job's ending signal wakes it (core/TerminationSignals).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "core/Futex.hpp"

namespace ecluse {

class Wakeup {
 public:
  /** Sleeps `duration`, or less if notify() is called meanwhile (or was since the last sleep);
   * true if it was notified. */
  bool sleep_for(std::chrono::microseconds duration) {
    const std::uint32_t key = sequence_.load(std::memory_order_acquire);
    if (notified_.exchange(false, std::memory_order_acq_rel)) return true;
    futex_wait(sequence_, key, duration);  // returns at once if a notify came since the key
    return notified_.exchange(false, std::memory_order_acq_rel);
  }
  /** Ends the current or the next sleep. Any thread, and a signal handler (atomics and one
   * system call). The flag comes first, so a notify between the sleeper's key and its wait
   * changes the key: the wait returns at once. Its owner destroys it only once the threads
   * that notify it are joined (the DN server: its store thread). */
  void notify() noexcept {
    notified_.store(true, std::memory_order_release);
    sequence_.fetch_add(1, std::memory_order_acq_rel);
    futex_wake(sequence_, 1);
  }

 private:
  std::atomic<std::uint32_t> sequence_{0};
  std::atomic<bool> notified_{false};
};

}  // namespace ecluse
