// The dedicated node server's pauses between polls (PollPacer.hpp).
#include "dn/PollPacer.hpp"

#include <algorithm>

namespace ecluse {

void PollPacer::on_message(Clock::time_point /*now*/, Micros client_gap) {
  if (between_since_ && client_gap.count() > 0) {
    gaps_[gaps_seen_ % kHistory] = client_gap;
    ++gaps_seen_;
  }
  between_since_.reset();
  delay_ = kFirst;
}

PollPacer::Micros PollPacer::shortest_gap() const {
  if (gaps_seen_ == 0) return Micros{0};
  const std::size_t known = std::min(gaps_seen_, kHistory);
  return *std::min_element(gaps_.begin(), gaps_.begin() + known);
}

PollPacer::Micros PollPacer::quiet_part() const {
  return std::min(shortest_gap() * 7 / 8, kQuietLongest);
}

PollPacer::Micros PollPacer::between_longest() const {
  return std::clamp(shortest_gap() / 8, kLongest, kQuietLongest);
}

PollPacer::Micros PollPacer::next(State state, Clock::time_point now) {
  if (state != State::Between) {
    between_since_.reset();
  } else if (!between_since_) {
    between_since_ = now;
    quiet_until_ = now + quiet_part();
    delay_ = std::max(delay_, std::min(quiet_part(), between_longest()));
  }
  if (state == State::Between && quiet_until_ - now > delay_) {
    return std::chrono::duration_cast<Micros>(quiet_until_ - now);
  }
  const Micros longest = state == State::Receiving ? kReceivingLongest
                         : state == State::Partial ? kLongest
                                                   : between_longest();
  const Micros pause = std::min(delay_, longest);
  delay_ = std::min(pause * 2, longest);
  return pause;
}

}  // namespace ecluse
