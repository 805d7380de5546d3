// A sleep another thread can cut short: the dedicated node server sleeps between polls and its
// store thread wakes it when an iteration is stored, so the credit goes back at once.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace ecluse {

class Wakeup {
 public:
  /** Sleeps `duration`, or less if notify() is called meanwhile (or was since the last sleep);
   * true if it was notified. */
  bool sleep_for(std::chrono::microseconds duration) {
    std::unique_lock lock(mutex_);
    const bool woken = ready_.wait_for(lock, duration, [this] { return notified_; });
    notified_ = false;
    return woken;
  }
  /** Ends the current or the next sleep. Any thread. Notifies under the lock, so that the
   * sleeper, once awake, may destroy the Wakeup as soon as it has the lock. */
  void notify() {
    const std::lock_guard lock(mutex_);
    notified_ = true;
    ready_.notify_one();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  bool notified_ = false;
};

}  // namespace ecluse
