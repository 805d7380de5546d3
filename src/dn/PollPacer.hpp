// How long a dedicated node server sleeps between two polls of its clients' messages. MPI's
// progress engine would busy-poll; in a VM each sleep and wake-up costs the server 50-100 us of
// CPU, so the pacer polls often only while a message is arriving and, between two iterations,
// sleeps through most of the clients' compute phase, whose length their messages carry (each
// client's time since its previous message, on its own clock).
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <optional>
#include <vector>

#include "dn/Backoff.hpp"

namespace ecluse {

class PollPacer {
 public:
  using Clock = std::chrono::steady_clock;
  using Micros = std::chrono::microseconds;
  /** What the server is waiting for. */
  enum class State {
    Receiving,  // a payload is arriving: MPI moves it forward only inside polls
    Partial,    // between the messages of an iteration some client has not ended yet
    Between,    // every iteration received is complete: the next one is a compute phase away
  };
  static constexpr Micros kFirst = Backoff::kFirst;
  static constexpr Micros kReceivingLongest = Backoff::kLongest;
  /** The longest pause outside the quiet part of a wait: at 1 ms an idle server used 2.6% of a
   * core; at 8 ms a message waits less than the copy of 16 MiB takes. */
  static constexpr Micros kLongest{8000};
  /** The longest quiet part of a wait and the longest pause after it: a message that comes
   * sooner than the clients' usual gap (a signal, the Stop at the end of the run) waits at
   * most this long. */
  static constexpr Micros kQuietLongest{50000};
  /** A client's gap counts as at most this long. */
  static constexpr Micros kLongestGap = std::chrono::hours(1);
  /** The waits remembered: the quiet part of a wait is 7/8 of the shortest. */
  static constexpr std::size_t kHistory = 4;

  /** A pacer for a server of `clients` clients (indices 0 to clients - 1). */
  explicit PollPacer(std::size_t clients = 1);
  /** Client `client`'s message arrived: poll again soon. `client_gap` is the client's own time
   * since its previous message (BlockMessage::since_previous_us; 0 for its first). The first
   * message after the start of a wait between iterations ends it and adds to the history the
   * time from that start to when the message was due: when the server received the client's
   * previous message plus `client_gap`. A due time, not the time the server noticed the
   * message, so the estimate does not grow with the sleeps it causes; and per client, so that
   * clients that end their iterations at different times are each expected when they are due. */
  void on_message(Clock::time_point now, std::size_t client, Micros client_gap);
  /** The pause before the next poll. Receiving and Partial: twice the last pause (kFirst after
   * a message), up to kReceivingLongest or kLongest. Between: one sleep to the end of the
   * wait's quiet part, which starts with the first call of the wait (also after an early
   * wake-up), then pauses that double up to between_longest(). */
  Micros next(State state, Clock::time_point now);
  /** The quiet part of the next wait between iterations: 7/8 of the shortest of the last
   * kHistory waits (none before a wait ended with a known gap), at most kQuietLongest. A
   * message whose client's previous one the server received at most 1/8 of the wait late
   * (polls are at most 1 ms apart while a payload arrives) is then never received late. */
  [[nodiscard]] Micros quiet_part() const;
  /** The longest pause after the quiet part: 1/8 of the shortest known wait, within [kLongest,
   * kQuietLongest] (kLongest before a wait is known), so long compute phases cost few polls. */
  [[nodiscard]] Micros between_longest() const;

 private:
  Backoff backoff_;
  std::optional<Clock::time_point> between_since_;
  Clock::time_point quiet_until_;
  std::array<Micros, kHistory> waits_{};
  std::size_t waits_seen_ = 0;
  std::vector<std::optional<Clock::time_point>> last_seen_;  // by client: its last message
  /** The shortest of the last kHistory waits (0 before one is known). */
  [[nodiscard]] Micros shortest_wait() const;
};

}  // namespace ecluse
