// Vyukov's bounded queue (a ring of cells, each with a sequence number) used with many producers
// and one consumer, plus two eventcounts so that an idle consumer or a blocked producer sleeps in
// the kernel instead of spinning. Everything lives in shared memory: positions, never pointers.
// Limits: one consumer process only; a producer killed between claiming a cell and publishing it
// stalls the queue at that cell (the consumer then sees an empty queue until its timeout).
#include "shm/EventQueue.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <new>
#include <optional>

#include "core/Futex.hpp"
#include "ecluse/Error.hpp"

namespace ecluse::shm {

static_assert(std::atomic<std::uint64_t>::is_always_lock_free,
              "queue positions must be lock-free (hence address-free) to be shared by processes");
static_assert(std::atomic<std::uint32_t>::is_always_lock_free);

namespace {

constexpr std::uint64_t kMagic = 0x45434c5553455131;  // "ECLUSEQ1"
constexpr std::size_t kLine = 64;
constexpr std::size_t kMaxCapacity = std::size_t{1} << 30;

struct alignas(kLine) Cell {
  std::atomic<std::uint64_t> sequence;  // == position: free; == position + 1: holds an event
  std::uint32_t urgent;                 // pushed with wake: its producer waits for no one after
  BlockMessage event;
};

// The polling window around a client's next urgent event, from the last two intervals between
// its urgent events (two, so that alternating intervals are covered too; per client, so that
// clients ending an iteration together do not make them alternate between microseconds and the
// iteration, which kept a 2-client node's consumer polling every 50 us: 15-18% of a core): from 3/4
// of the shorter after the last event to twice the longer (plus a little); intervals above
// kLongestPeriod are not predicted (the consumer sleeps on the futex, as when idle). Polls every
// 1/8 of the shorter interval, between kShortestPoll and kLongestPoll: a window holds about 2 polls
// when the events are regular and at most about 14 when they are not, whatever the interval (each
// poll costs the consumer 15-20 us of CPU in a VM: with a fixed 2 ms poll a 60 ms interval cost it
// 10-16% of a core, now under 1% from 20 ms intervals on). A window that opens in less than
// kShortestSleep is polled from now: a timed futex sleep that short oversleeps (timer slack,
// wake-up latency) past the event it waits for. Polls are few on purpose: each wake-up of the
// consumer costs the producer too where both share a core's hardware (a VM: a 16 MiB write
// ran 1.3 times slower while the consumer polled every 1/16 of the interval, unchanged at 1/4).
constexpr auto kLongestPeriod = std::chrono::seconds(30);
constexpr auto kShortestPoll = std::chrono::microseconds(50);
constexpr auto kLongestPoll = std::chrono::milliseconds(50);
constexpr auto kWindowSlack = std::chrono::milliseconds(1);
constexpr auto kShortestSleep = std::chrono::milliseconds(1);

using Clock = std::chrono::steady_clock;

std::chrono::nanoseconds remaining(Clock::time_point deadline) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - Clock::now());
}

Clock::time_point deadline_after(std::chrono::nanoseconds timeout) {
  const auto now = Clock::now();
  // A huge timeout ("forever") must not overflow the time point.
  if (timeout > Clock::time_point::max() - now) return Clock::time_point::max();
  return now + std::chrono::duration_cast<Clock::duration>(timeout);
}

}  // namespace

// Producers and the consumer write different cache lines, so they do not slow each other down.
struct alignas(kLine) EventQueue::Header {
  std::atomic<std::uint64_t> magic;
  std::uint64_t capacity;
  alignas(kLine) std::atomic<std::uint64_t> enqueue_pos;
  alignas(kLine) std::atomic<std::uint64_t> dequeue_pos;
  // Eventcount of the consumer: bumped by a producer that saw `consumer_sleeping`.
  alignas(kLine) std::atomic<std::uint32_t> not_empty;
  std::atomic<std::uint32_t> consumer_sleeping;
  std::atomic<std::uint32_t> interrupted;  // interrupt() was called, pop() has not returned since
  // Eventcount of the producers waiting while the queue is full.
  alignas(kLine) std::atomic<std::uint32_t> not_full;
  std::atomic<std::uint32_t> producers_waiting;

  Cell* cells() { return reinterpret_cast<Cell*>(reinterpret_cast<char*>(this) + sizeof(*this)); }
  Cell& cell(std::uint64_t position) { return cells()[position & (capacity - 1)]; }
  bool try_push(const BlockMessage& event, bool urgent);
  std::optional<BlockMessage> try_pop(bool* urgent);
  void wake_consumer();
  void wake_producers();
};

namespace {

void check_capacity(std::size_t capacity) {
  const bool power_of_two = capacity >= 2 && (capacity & (capacity - 1)) == 0;
  if (!power_of_two || capacity > kMaxCapacity) {
    throw Error(ECLUSE_ARGUMENT_ERROR, "event queue capacity " + std::to_string(capacity) +
                                           " is invalid: it must be a power of two between 2 and " +
                                           std::to_string(kMaxCapacity) + " (e.g. 1024)");
  }
}

void check_alignment(const void* where) {
  if (where == nullptr || reinterpret_cast<std::uintptr_t>(where) % kLine != 0) {
    throw Error(ECLUSE_ARGUMENT_ERROR,
                "event queue address is not aligned on 64 bytes; place queues at offsets that "
                "are multiples of 64 (EventQueue::footprint() keeps consecutive queues aligned)");
  }
}

}  // namespace

std::size_t EventQueue::footprint(std::size_t capacity) {
  check_capacity(capacity);
  return sizeof(Header) + capacity * sizeof(Cell);
}

EventQueue EventQueue::create(void* where, std::size_t capacity) {
  check_capacity(capacity);
  check_alignment(where);
  auto* header = new (where) Header{};
  header->capacity = capacity;
  for (std::uint64_t i = 0; i < capacity; ++i) {
    new (&header->cells()[i]) Cell{};
    header->cells()[i].sequence.store(i, std::memory_order_relaxed);
  }
  // Published last: a process that attaches sees either no queue or a complete one.
  header->magic.store(kMagic, std::memory_order_release);
  return EventQueue(header);
}

EventQueue EventQueue::attach(void* where) {
  check_alignment(where);
  auto* header = static_cast<Header*>(where);
  if (header->magic.load(std::memory_order_acquire) != kMagic) {
    throw Error(ECLUSE_CHANNEL_ERROR,
                "no event queue at this place of the shared segment: the dedicated core has "
                "not formatted it yet, or client and server disagree on the layout; attach only "
                "after the server has created the queues");
  }
  return EventQueue(header);
}

std::size_t EventQueue::capacity() const {
  return header_->capacity;
}

bool EventQueue::consumer_asleep() const {
  return header_->consumer_sleeping.load(std::memory_order_acquire) != 0;
}

// Vyukov's enqueue: claim a position whose cell is free (CAS on enqueue_pos), fill the cell, then
// publish it through its sequence number. A cell one lap behind means the queue is full.
bool EventQueue::Header::try_push(const BlockMessage& event, bool urgent) {
  auto position = enqueue_pos.load(std::memory_order_relaxed);
  for (;;) {
    Cell& c = cell(position);
    const auto sequence = c.sequence.load(std::memory_order_acquire);
    const auto lag = static_cast<std::int64_t>(sequence - position);
    if (lag < 0) return false;
    if (lag > 0) {
      position = enqueue_pos.load(std::memory_order_relaxed);
    } else if (enqueue_pos.compare_exchange_weak(position, position + 1,
                                                 std::memory_order_relaxed)) {
      c.event = event;
      c.urgent = urgent ? 1 : 0;
      c.sequence.store(position + 1, std::memory_order_release);
      return true;
    }
  }
}

// Single consumer: no CAS. A claimed but not yet published cell reads as empty; its producer
// wakes us once it publishes.
std::optional<BlockMessage> EventQueue::Header::try_pop(bool* urgent) {
  const auto position = dequeue_pos.load(std::memory_order_relaxed);
  Cell& c = cell(position);
  if (c.sequence.load(std::memory_order_acquire) != position + 1) return std::nullopt;
  BlockMessage event = c.event;
  *urgent = c.urgent != 0;
  c.sequence.store(position + capacity, std::memory_order_release);
  dequeue_pos.store(position + 1, std::memory_order_relaxed);
  return event;
}

// The fence pairs with the one in pop(): either the consumer's re-check sees our event, or we
// see its `consumer_sleeping` flag and wake it. A consumer that is awake costs no syscall.
void EventQueue::Header::wake_consumer() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (consumer_sleeping.load(std::memory_order_relaxed) == 0) return;
  not_empty.fetch_add(1, std::memory_order_release);
  futex_wake(not_empty, 1);
}

// Same handshake with the producers that wait for room; all of them are woken because any one
// may have given up (timeout) in the meantime.
void EventQueue::Header::wake_producers() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (producers_waiting.load(std::memory_order_relaxed) == 0) return;
  not_full.fetch_add(1, std::memory_order_release);
  futex_wake(not_full, INT_MAX);
}

bool EventQueue::push(const BlockMessage& event, std::chrono::nanoseconds timeout, bool wake) {
  Header& h = *header_;
  const auto deadline = deadline_after(timeout);
  for (;;) {
    if (h.try_push(event, wake)) break;
    h.wake_consumer();  // full: a consumer not woken by lazy pushes must drain it now
    const auto key = h.not_full.load(std::memory_order_acquire);
    h.producers_waiting.fetch_add(1, std::memory_order_seq_cst);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    const bool pushed = h.try_push(event, wake);
    const auto left = remaining(deadline);
    if (!pushed && left.count() > 0) futex_wait(h.not_full, key, left);
    h.producers_waiting.fetch_sub(1, std::memory_order_relaxed);
    if (pushed) break;
    if (left.count() <= 0) return false;
  }
  if (wake) h.wake_consumer();
  return true;
}

std::optional<BlockMessage> EventQueue::try_pop() {
  bool urgent = false;
  auto event = header_->try_pop(&urgent);
  if (!event) return event;
  header_->wake_producers();
  // Only iteration ends set the rhythm: a signal sent just before each end_iteration would make
  // a client's intervals alternate too. Signals and stops still wake the consumer.
  if (urgent && event->type == MessageType::EndIteration) learn(Clock::now(), event->client);
  return event;
}

void EventQueue::Rhythm::learn(Clock::time_point now) {
  if (last != Clock::time_point{}) {
    previous = period;
    period = now - last;
  }
  last = now;
}

bool EventQueue::Rhythm::predicts() const {
  return period.count() > 0 && period <= kLongestPeriod && previous <= kLongestPeriod;
}

EventQueue::Clock::duration EventQueue::Rhythm::shortest_period() const {
  return previous.count() > 0 ? std::min(period, previous) : period;
}

std::optional<std::chrono::nanoseconds> EventQueue::Rhythm::poll_interval(
    Clock::time_point now) const {
  if (!predicts()) return std::nullopt;
  const auto since = now - last;
  const auto opens = shortest_period() * 3 / 4;
  const auto closes = std::max(period, previous) * 2 + kWindowSlack;
  if (since + kShortestSleep < opens || since > closes) return std::nullopt;
  const auto poll = std::chrono::duration_cast<std::chrono::nanoseconds>(shortest_period() / 8);
  return std::clamp<std::chrono::nanoseconds>(poll, kShortestPoll, kLongestPoll);
}

EventQueue::Clock::time_point EventQueue::Rhythm::window_start(Clock::time_point now) const {
  if (!predicts()) return Clock::time_point::max();
  const auto start = last + shortest_period() * 3 / 4 - kShortestSleep;
  return start > now ? start : Clock::time_point::max();
}

void EventQueue::learn(Clock::time_point now, int client) {
  const auto index = std::min(static_cast<std::size_t>(std::max(client, 0)), kMostRhythms - 1);
  if (index >= rhythms_.size()) rhythms_.resize(index + 1);  // once per client, at its start
  rhythms_[index].learn(now);
}

std::optional<std::chrono::nanoseconds> EventQueue::poll_interval(Clock::time_point now) const {
  std::optional<std::chrono::nanoseconds> shortest;
  for (const Rhythm& rhythm : rhythms_) {
    const auto poll = rhythm.poll_interval(now);
    if (poll && (!shortest || *poll < *shortest)) shortest = poll;
  }
  return shortest;
}

EventQueue::Clock::time_point EventQueue::window_start(Clock::time_point now) const {
  auto first = Clock::time_point::max();
  for (const Rhythm& rhythm : rhythms_) first = std::min(first, rhythm.window_start(now));
  return first;
}

void EventQueue::interrupt() {
  Header& h = *header_;
  h.interrupted.store(1, std::memory_order_release);
  h.not_empty.fetch_add(1, std::memory_order_release);  // a wait that read the key before returns
  futex_wake(h.not_empty, 1);
}

// The key is read before looking: a push or an interrupt after it changes the eventcount, so the
// futex wait on that key returns at once instead of sleeping past it.
std::optional<BlockMessage> EventQueue::pop(std::chrono::nanoseconds timeout) {
  Header& h = *header_;
  const auto deadline = deadline_after(timeout);
  for (;;) {
    const auto key = h.not_empty.load(std::memory_order_acquire);
    if (auto event = try_pop()) return event;
    if (h.interrupted.exchange(0, std::memory_order_acq_rel) != 0) return std::nullopt;
    const auto now = Clock::now();
    if (now >= deadline) return std::nullopt;
    // In the window: a short sleep without announcing it, so producers do not wake us.
    if (const auto poll = poll_interval(now)) {
      futex_wait(h.not_empty, key, std::min(*poll, remaining(deadline)));
      continue;
    }
    // Announce the sleep, then look once more: a producer that published before seeing the
    // flag is caught by the re-check, one that publishes after sees the flag and wakes us.
    // The sleep ends at the deadline or when the next window opens.
    const auto until = std::min(deadline, window_start(now));
    h.consumer_sleeping.store(1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    auto event = try_pop();
    if (!event) futex_wait(h.not_empty, key, remaining(until));
    h.consumer_sleeping.store(0, std::memory_order_relaxed);
    if (event) return event;
  }
}

}  // namespace ecluse::shm
