// The dedicated node server's pauses between polls (PollPacer.hpp).
#include "dn/PollPacer.hpp"

#include <algorithm>

namespace ecluse {

PollPacer::PollPacer(std::size_t clients) : last_seen_(clients) {}

// The message was sent `client_gap` after the client's previous one, which the server received
// at last_seen (polls are frequent then): it was due at last_seen + client_gap, whenever the
// server noticed it. That due time, from the start of the wait, is what the next wait expects.
void PollPacer::on_message(Clock::time_point now, std::size_t client, Micros client_gap) {
  std::optional<Clock::time_point>& seen = last_seen_.at(client);
  if (between_since_ && seen && client_gap.count() > 0) {
    // Bounded so that the sum cannot overflow the clock (any gap past the bound is long).
    const Micros gap = std::min(client_gap, kLongestGap);
    const auto due = std::chrono::duration_cast<Micros>(*seen + gap - *between_since_);
    waits_[waits_seen_ % kHistory] = std::max(due, Micros{0});
    ++waits_seen_;
  }
  seen = now;
  between_since_.reset();
  backoff_.reset();
}

PollPacer::Micros PollPacer::shortest_wait() const {
  if (waits_seen_ == 0) return Micros{0};
  const std::size_t known = std::min(waits_seen_, kHistory);
  return *std::min_element(waits_.begin(), waits_.begin() + known);
}

PollPacer::Micros PollPacer::quiet_part() const {
  return std::min(shortest_wait() * 7 / 8, kQuietLongest);
}

PollPacer::Micros PollPacer::between_longest() const {
  return std::clamp(shortest_wait() / 8, kLongest, kQuietLongest);
}

PollPacer::Micros PollPacer::next(State state, Clock::time_point now) {
  if (state != State::Between) {
    between_since_.reset();
  } else if (!between_since_) {
    between_since_ = now;
    quiet_until_ = now + quiet_part();
    backoff_.at_least(std::min(quiet_part(), between_longest()));
  }
  if (state == State::Between && quiet_until_ - now > backoff_.delay()) {
    return std::chrono::duration_cast<Micros>(quiet_until_ - now);
  }
  const Micros longest = state == State::Receiving ? kReceivingLongest
                         : state == State::Partial ? kLongest
                                                   : between_longest();
  return backoff_.next(longest);
}

}  // namespace ecluse
