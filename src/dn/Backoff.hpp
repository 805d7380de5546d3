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
  /** Nothing happened: sleep, and sleep longer next time, up to `longest` (kLongest unless a
   * caller that may wait long without harm, an idle server, allows more). */
  void pause(std::chrono::microseconds longest = kLongest) {
    std::this_thread::sleep_for(delay_);
    delay_ = std::min(delay_ * 2, longest);
  }

 private:
  std::chrono::microseconds delay_ = kFirst;
};

}  // namespace ecluse
