// A bounded multi-producer single-consumer queue of BlockMessages in shared memory; the consumer
// sleeps on a futex while it is empty, producers sleep while it is full. Around the time the
// next urgent event is due (from the interval between the last two), the consumer polls in
// short sleeps instead, so that the producer of that event need not wake it (a futex wake of a
// process asleep on another core costs 7-30 us in a VM, on the producer's path).
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>

#include "block/BlockMessage.hpp"

namespace ecluse::shm {

class EventQueue {
 public:
  /** Bytes of shared memory for a queue of `capacity` events (capacity: a power of two). */
  static std::size_t footprint(std::size_t capacity);
  /** Formats the queue at `where` (one process, before any other attaches). */
  static EventQueue create(void* where, std::size_t capacity);
  static EventQueue attach(void* where);

  /** Waits while full, at most `timeout`; false on timeout. Wakes the consumer if asleep,
   * unless `wake` is false (the event can wait for the next wake-up; a full queue always
   * wakes the consumer). */
  bool push(const BlockMessage& event, std::chrono::nanoseconds timeout, bool wake = true);
  /** Non-blocking pop (consumer only). */
  std::optional<BlockMessage> try_pop();
  /** Sleeps until an event arrives, `timeout` passes or interrupt() is called (consumer only):
   * on the futex, or, in the window where the next urgent event is expected, in polls of 1/8
   * of the interval between urgent events (50 us to 50 ms). */
  std::optional<BlockMessage> pop(std::chrono::nanoseconds timeout);
  /** Makes the consumer's current or next pop() return at once, empty-handed if no event is
   * there (any thread or process; one system call). A consumer's own helper thread uses it to
   * say "I finished something" without polling. */
  void interrupt();
  [[nodiscard]] std::size_t capacity() const;
  /** True while the consumer sleeps on the futex: a push with `wake` would make a system call. */
  [[nodiscard]] bool consumer_asleep() const;

 private:
  struct Header;
  using Clock = std::chrono::steady_clock;
  explicit EventQueue(Header* header) : header_(header) {}
  /** An urgent event was popped now: the interval since the last one predicts the next. */
  void learn(Clock::time_point now);
  /** The poll interval if `now` is in the window of the next urgent event. */
  [[nodiscard]] std::optional<std::chrono::nanoseconds> poll_interval(Clock::time_point now) const;
  [[nodiscard]] bool predicts() const;
  [[nodiscard]] Clock::duration shortest_period() const;
  /** When the next window opens (max() when none is predicted or it is open). */
  [[nodiscard]] Clock::time_point window_start(Clock::time_point now) const;
  Header* header_;
  // The consumer's own prediction (process-local: only the consumer pops).
  Clock::time_point last_urgent_{};
  Clock::duration period_{0};           // between the last two urgent events
  Clock::duration previous_period_{0};  // the interval before
};

}  // namespace ecluse::shm
