// A bounded multi-producer single-consumer queue of BlockMessages in shared memory; the consumer
// sleeps on a futex while it is empty, producers sleep while it is full. Around the time the
// next urgent event of a client is due (from the interval between that client's last two), the
// consumer polls in short sleeps instead, so that the producer of that event need not wake it
// (a futex wake of a process asleep on another core costs 7-30 us in a VM, on the producer's
// path).
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <vector>

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
  /** The rhythm of one client's iterations (its urgent EndIteration events; signals and stops
   * wake the consumer but do not count): the window where its next one is expected. Per client,
   * because clients that end an iteration together would otherwise make the intervals alternate
   * between microseconds and the whole iteration, and keep the consumer polling through the compute
   * phase. */
  struct Rhythm {
    Clock::time_point last{};
    Clock::duration period{0};    // between its last two urgent events
    Clock::duration previous{0};  // the interval before
    void learn(Clock::time_point now);
    [[nodiscard]] bool predicts() const;
    [[nodiscard]] Clock::duration shortest_period() const;
    /** The poll interval if `now` is in the window of its next urgent event. */
    [[nodiscard]] std::optional<std::chrono::nanoseconds> poll_interval(
        Clock::time_point now) const;
    /** When its next window opens (max() when none is predicted or it is open). */
    [[nodiscard]] Clock::time_point window_start(Clock::time_point now) const;
  };
  /** Clients' rhythms kept; a larger client index shares the last one. */
  static constexpr std::size_t kMostRhythms = 4096;
  explicit EventQueue(Header* header) : header_(header) {}
  /** An urgent EndIteration of `client` was popped now: the interval since its last one
   * predicts its next. */
  void learn(Clock::time_point now, int client);
  /** The shortest poll interval among the clients in whose window `now` is. */
  [[nodiscard]] std::optional<std::chrono::nanoseconds> poll_interval(Clock::time_point now) const;
  /** When the first client's next window opens (max() when none is predicted or one is open). */
  [[nodiscard]] Clock::time_point window_start(Clock::time_point now) const;
  Header* header_;
  // The consumer's own predictions (process-local: only the consumer pops), by client index.
  std::vector<Rhythm> rhythms_;
};

}  // namespace ecluse::shm
