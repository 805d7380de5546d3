// PollPacer: the dedicated node server's pauses between polls, on synthetic clocks; Wakeup: a
// sleep another thread cuts short.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "core/Wakeup.hpp"
#include "dn/PollPacer.hpp"

namespace ecluse {
namespace {

using Micros = PollPacer::Micros;
using State = PollPacer::State;
using std::chrono::milliseconds;

const PollPacer::Clock::time_point kT0{};

/** Pauses of one stretch in `state`: each poll happens when the previous pause ends. */
std::vector<long> pauses(PollPacer& pacer, State state, PollPacer::Clock::time_point from,
                         int count) {
  std::vector<long> out;
  auto now = from;
  for (int i = 0; i < count; ++i) {
    const Micros p = pacer.next(state, now);
    out.push_back(static_cast<long>(p.count()));
    now += p;
  }
  return out;
}

TEST(PollPacer, DoublesFromTwentyMicrosecondsUpToEachStatesLongest) {
  PollPacer receiving;
  EXPECT_EQ(pauses(receiving, State::Receiving, kT0, 8),
            (std::vector<long>{20, 40, 80, 160, 320, 640, 1000, 1000}));
  PollPacer partial;
  EXPECT_EQ(pauses(partial, State::Partial, kT0, 11),
            (std::vector<long>{20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 8000, 8000}));
  // Between iterations with no client gap known yet: as Partial.
  PollPacer between;
  EXPECT_EQ(pauses(between, State::Between, kT0, 11),
            (std::vector<long>{20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 8000, 8000}));
  EXPECT_EQ(between.quiet_part(), Micros{0});
}

TEST(PollPacer, AMessageRestartsFromTwentyMicroseconds) {
  PollPacer pacer;
  pauses(pacer, State::Partial, kT0, 6);
  pacer.on_message(kT0 + milliseconds(5), 0, Micros{0});
  EXPECT_EQ(pacer.next(State::Receiving, kT0 + milliseconds(5)), Micros{20});
}

/** One wait between iterations ended by client `client`'s message, sent `gap` after its
 * previous one, which the server received at `previous`; the wait starts at `start`. */
void wait_ended(PollPacer& pacer, std::size_t client, PollPacer::Clock::time_point previous,
                PollPacer::Clock::time_point start, Micros gap) {
  pacer.on_message(previous, client, Micros{0});
  pacer.next(State::Between, start);
  pacer.on_message(start + gap, client, gap);
}

TEST(PollPacer, SleepsThroughSevenEighthsOfTheShortestWait) {
  PollPacer pacer;
  // The client computed 40 ms between its last message of an iteration and its next one.
  wait_ended(pacer, 0, kT0, kT0, milliseconds(40));
  EXPECT_EQ(pacer.quiet_part(), Micros{35000});
  // The next wait: one sleep of 35 ms, then pauses of at most kLongest (40/8 = 5 ms < 8 ms).
  const auto start = kT0 + milliseconds(41);
  EXPECT_EQ(pauses(pacer, State::Between, start, 4), (std::vector<long>{35000, 8000, 8000, 8000}));
  // The shortest of the last kHistory waits counts: one 16 ms wait among 40 ms ones.
  for (long gap : {40, 16, 40, 40}) wait_ended(pacer, 0, start, start, milliseconds(gap));
  EXPECT_EQ(pacer.quiet_part(), Micros{14000});
  // kHistory later waits push the short one out.
  for (int i = 0; i < 4; ++i) wait_ended(pacer, 0, start, start, milliseconds(40));
  EXPECT_EQ(pacer.quiet_part(), Micros{35000});
}

TEST(PollPacer, AWaitIsMeasuredToWhenTheMessageWasDueNotToWhenItWasNoticed) {
  PollPacer pacer;
  pacer.on_message(kT0, 0, Micros{0});
  pacer.next(State::Between, kT0);
  // Noticed 70 ms after the wait began, but sent 40 ms after the previous message: due at 40.
  pacer.on_message(kT0 + milliseconds(70), 0, milliseconds(40));
  EXPECT_EQ(pacer.quiet_part(), Micros{35000});
}

TEST(PollPacer, ClientsThatEndTheirIterationsAtDifferentTimesAreEachExpectedWhenDue) {
  PollPacer pacer(2);
  pacer.on_message(kT0, 0, Micros{0});                     // client 0 ends its iteration
  pacer.on_message(kT0 + milliseconds(10), 1, Micros{0});  // client 1, 10 ms later
  pacer.next(State::Between, kT0 + milliseconds(10));      // the wait starts
  // Client 0 computed 40 ms: due 30 ms into the wait.
  pacer.on_message(kT0 + milliseconds(41), 0, milliseconds(40));
  EXPECT_EQ(pacer.quiet_part(), Micros{26250});
  // A message already due when the wait began: no quiet part.
  pacer.next(State::Between, kT0 + milliseconds(60));
  pacer.on_message(kT0 + milliseconds(61), 1, milliseconds(20));
  EXPECT_EQ(pacer.quiet_part(), Micros{0});
}

TEST(PollPacer, OnlyTheMessageThatEndsAWaitBetweenIterationsCounts) {
  PollPacer pacer;
  wait_ended(pacer, 0, kT0, kT0, milliseconds(40));          // counted
  pacer.on_message(kT0 + milliseconds(40), 0, Micros{150});  // the iteration's next block: not
  pacer.next(State::Partial, kT0 + milliseconds(41));
  pacer.on_message(kT0 + milliseconds(42), 0, Micros{300});  // not a wait between iterations
  pacer.next(State::Between, kT0 + milliseconds(43));
  pacer.on_message(kT0 + milliseconds(44), 0, Micros{0});  // no gap known: not counted
  EXPECT_EQ(pacer.quiet_part(), Micros{35000});
}

TEST(PollPacer, TheQuietPartRunsFromTheStartOfTheWaitEvenAfterAnEarlyWakeUp) {
  PollPacer pacer;
  wait_ended(pacer, 0, kT0, kT0, milliseconds(40));
  const auto start = kT0 + milliseconds(100);
  EXPECT_EQ(pacer.next(State::Between, start), Micros{35000});
  // Woken after 3 ms (an iteration was stored): sleeps the 32 ms left, then the tail.
  EXPECT_EQ(pacer.next(State::Between, start + milliseconds(3)), Micros{32000});
  EXPECT_EQ(pacer.next(State::Between, start + milliseconds(35)), Micros{8000});
}

TEST(PollPacer, LongComputePhasesAreBoundedSoAnEarlyMessageWaitsAtMostFiftyMilliseconds) {
  PollPacer pacer;
  wait_ended(pacer, 0, kT0, kT0, std::chrono::seconds(2));
  EXPECT_EQ(pacer.quiet_part(), PollPacer::kQuietLongest);
  EXPECT_EQ(pacer.between_longest(), PollPacer::kQuietLongest);
  EXPECT_EQ(pauses(pacer, State::Between, kT0 + std::chrono::seconds(3), 3),
            (std::vector<long>{50000, 50000, 50000}));
  // 200 ms waits: the tail's pauses are 1/8 of the wait.
  PollPacer medium;
  wait_ended(medium, 0, kT0, kT0, milliseconds(200));
  EXPECT_EQ(medium.between_longest(), Micros{25000});
  EXPECT_EQ(pauses(medium, State::Between, kT0 + std::chrono::seconds(1), 3),
            (std::vector<long>{50000, 25000, 25000}));
}

TEST(PollPacer, AnyClientGapIsSafe) {
  PollPacer pacer;
  pacer.on_message(kT0, 0, Micros{0});
  pacer.next(State::Between, kT0);
  pacer.on_message(kT0 + milliseconds(1), 0, Micros{std::chrono::microseconds::max()});
  EXPECT_EQ(pacer.quiet_part(), PollPacer::kQuietLongest);  // a long gap, no overflow
  pacer.next(State::Between, kT0 + milliseconds(2));
  pacer.on_message(kT0 + milliseconds(3), 0, Micros{-5});  // not a gap: not counted
  EXPECT_EQ(pacer.quiet_part(), PollPacer::kQuietLongest);
}

TEST(PollPacer, ReceivingOrPartialStatesEndTheWait) {
  PollPacer pacer;
  wait_ended(pacer, 0, kT0, kT0, milliseconds(40));
  pacer.next(State::Between, kT0 + milliseconds(41));  // a wait with a quiet part of 35 ms
  pacer.on_message(kT0 + milliseconds(42), 0, Micros{0});
  EXPECT_EQ(pacer.next(State::Receiving, kT0 + milliseconds(42)), Micros{20});
  // The next wait starts its own quiet part.
  EXPECT_EQ(pacer.next(State::Between, kT0 + milliseconds(43)), Micros{35000});
}

TEST(Wakeup, NotifyEndsASleepAndIsKeptForTheNextOne) {
  Wakeup wakeup;
  EXPECT_FALSE(wakeup.sleep_for(Micros{100}));
  wakeup.notify();  // before the sleep: the sleep returns at once
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(wakeup.sleep_for(std::chrono::seconds(30)));
  std::thread other([&] {
    std::this_thread::sleep_for(milliseconds(20));
    wakeup.notify();
  });
  EXPECT_TRUE(wakeup.sleep_for(std::chrono::seconds(30)));
  other.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(25));
}

}  // namespace
}  // namespace ecluse
