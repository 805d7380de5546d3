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
    if (!notified_.exchange(false, std::memory_order_acq_rel)) {
      futex_wait(sequence_, key, duration);  // returns at once if a notify came since the key
    }
    return notified_.exchange(false, std::memory_order_acq_rel) || woken_since(key);
  }
  /** Ends the current or the next sleep. Any thread, and a signal handler (atomics and one
   * system call). The sleeper may return once the flag is set: nothing of this object is
   * touched after the futex wake's address is passed to the kernel. */
  void notify() noexcept {
    sequence_.fetch_add(1, std::memory_order_acq_rel);
    notified_.store(true, std::memory_order_release);
    futex_wake(sequence_, 1);
  }

 private:
  [[nodiscard]] bool woken_since(std::uint32_t key) const {
    return sequence_.load(std::memory_order_acquire) != key;
  }

  std::atomic<std::uint32_t> sequence_{0};
  std::atomic<bool> notified_{false};
};

}  // namespace ecluse
