// A bounded multi-producer single-consumer queue of BlockMessages in shared memory; the consumer
// sleeps on a futex while it is empty, producers sleep while it is full.
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
  /** Non-blocking pop. */
  std::optional<BlockMessage> try_pop();
  /** Sleeps (no CPU) until an event arrives or `timeout` passes. */
  std::optional<BlockMessage> pop(std::chrono::nanoseconds timeout);
  [[nodiscard]] std::size_t capacity() const;

 private:
  struct Header;
  explicit EventQueue(Header* header) : header_(header) {}
  Header* header_;
};

}  // namespace ecluse::shm
