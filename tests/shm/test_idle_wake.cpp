// A dedicated core must cost nothing while the simulation computes: a consumer blocked in
// pop() uses almost no CPU, yet wakes promptly when an event arrives. Bounds are generous
// (2% CPU, 500 ms) because test machines are shared; the measured values are printed.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <thread>

#include "ShmTestSupport.hpp"
#include "shm/EventQueue.hpp"

namespace ecluse::shm {
namespace {

using namespace std::chrono_literals;

constexpr int kWakes = 20;
constexpr auto kIdle = 1500ms;

// Written by the consumer child, read by the test after the child exited.
struct Report {
  std::atomic<std::uint32_t> ready;
  std::uint64_t idle_cpu_ns;
  std::uint64_t idle_wall_ns;
  std::uint64_t latency_ns[kWakes + 1];
};

class IdleWakeTest : public test::ShmTest {};

// The producer puts its push time in `bytes`; the latency is the time until pop() returned.
int consume(void* where, Report* report) {
  auto queue = EventQueue::attach(where);
  report->ready.store(1);
  const auto cpu0 = test::now_ns(CLOCK_PROCESS_CPUTIME_ID);
  const auto wall0 = test::now_ns();
  auto first = queue.pop(10s);
  const auto woke = test::now_ns();
  report->idle_cpu_ns = test::now_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
  report->idle_wall_ns = woke - wall0;
  if (!first) return 1;
  report->latency_ns[0] = woke - first->bytes;
  for (int i = 1; i <= kWakes; ++i) {
    auto e = queue.pop(5s);
    if (!e) return 2;
    report->latency_ns[i] = test::now_ns() - e->bytes;
  }
  return 0;
}

void push_now(EventQueue& queue) {
  BlockMessage e;
  e.bytes = test::now_ns();
  ASSERT_TRUE(queue.push(e, 1s));
}

TEST_F(IdleWakeTest, BlockedConsumerSleepsAndWakesPromptly) {
  const auto queue_bytes = EventQueue::footprint(16);
  auto segment = SharedSegment::create(test::unique_name(), queue_bytes + sizeof(Report));
  auto queue = EventQueue::create(segment.base(), 16);
  auto* report = new (static_cast<char*>(segment.base()) + queue_bytes) Report{};
  void* where = segment.base();
  const pid_t child = test::spawn([where, report] { return consume(where, report); });
  while (report->ready.load() == 0) std::this_thread::sleep_for(1ms);
  std::this_thread::sleep_for(kIdle);
  push_now(queue);
  for (int i = 0; i < kWakes; ++i) {
    std::this_thread::sleep_for(20ms);  // the consumer is asleep again before each push
    push_now(queue);
  }
  ASSERT_EQ(test::wait_child(child), 0);

  const double cpu =
      100.0 * static_cast<double>(report->idle_cpu_ns) / static_cast<double>(report->idle_wall_ns);
  std::vector<std::uint64_t> lat(std::begin(report->latency_ns), std::end(report->latency_ns));
  std::sort(lat.begin(), lat.end());
  const double median_us = static_cast<double>(lat[lat.size() / 2]) / 1e3;
  const double max_us = static_cast<double>(lat.back()) / 1e3;
  std::printf(
      "idle consumer: %.3f%% CPU over %.2f s (%.3f ms CPU); wake latency median %.1f us, "
      "max %.1f us over %d wakes\n",
      cpu, static_cast<double>(report->idle_wall_ns) / 1e9,
      static_cast<double>(report->idle_cpu_ns) / 1e6, median_us, max_us, kWakes + 1);
  RecordProperty("idle_cpu_percent", std::to_string(cpu));
  RecordProperty("wake_median_us", std::to_string(median_us));
  RecordProperty("wake_max_us", std::to_string(max_us));
  EXPECT_GE(report->idle_wall_ns, 1'000'000'000u);
  EXPECT_LT(cpu, 2.0);
  EXPECT_LT(lat.back(), 500'000'000u);
}

}  // namespace
}  // namespace ecluse::shm
