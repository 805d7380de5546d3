// Sleeping between polls with a delay that doubles up to a bound: an idle Ecluse process costs
// almost no CPU (MPI's progress engine would busy-poll), yet answers within a millisecond.
#pragma once

#include <algorithm>
#include <chrono>
#include <thread>

namespace ecluse {

class Backoff {
 public:
  static constexpr std::chrono::microseconds kFirst{20};
  static constexpr std::chrono::microseconds kLongest{1000};
  /** Something happened: poll again soon. */
  void reset() { delay_ = kFirst; }
  /** Nothing happened: the next pause, at most `longest`, and twice as long next time, up to
   * `longest` (kLongest unless a caller that may wait long without harm allows more). */
  std::chrono::microseconds next(std::chrono::microseconds longest = kLongest) {
    const std::chrono::microseconds pause = std::min(delay_, longest);
    delay_ = std::min(pause * 2, longest);
    return pause;
  }
  /** Nothing happened: sleep next(longest). */
  void pause(std::chrono::microseconds longest = kLongest) {
    std::this_thread::sleep_for(next(longest));
  }
  /** The pause next() would give without a bound. */
  [[nodiscard]] std::chrono::microseconds delay() const { return delay_; }
  /** The next pause at least `delay` (a caller that knows nothing is due sooner). */
  void at_least(std::chrono::microseconds delay) { delay_ = std::max(delay_, delay); }

 private:
  std::chrono::microseconds delay_ = kFirst;
};

}  // namespace ecluse
