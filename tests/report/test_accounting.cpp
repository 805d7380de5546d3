// Phase accounting: phases add up to the wall time, scopes restore, iteration series, JSON.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "accounting/Accounting.hpp"
#include "report/Json.hpp"

namespace {

using ecluse::Accounting;
using ecluse::Phase;
using ecluse::PhaseScope;

// Spins until this thread has used `seconds` of CPU (and at least as much wall time): on a loaded
// machine a wall-clock spin may get much less CPU than its length.
void busy(double seconds) {
  const double end = ecluse::thread_cpu_clock() + seconds;
  volatile double x = 0;
  while (ecluse::thread_cpu_clock() < end) x = x + 1;
}

double sum_wall(const Accounting& a) {
  double s = 0;
  for (const auto& p : a.totals()) s += p.wall;
  return s;
}

TEST(Accounting, PhasesAddUpToTheWallTime) {
  Accounting a;
  a.switch_to(Phase::Compute);
  busy(0.02);
  {
    PhaseScope write(a, Phase::Write);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(a.current(), Phase::Compute);
  a.close();
  const double wall = a.wall_seconds();
  EXPECT_NEAR(sum_wall(a), wall, 1e-3);
  const auto& t = a.totals();
  EXPECT_GE(t[static_cast<int>(Phase::Compute)].wall, 0.019);
  EXPECT_GE(t[static_cast<int>(Phase::Write)].wall, 0.019);
  // Sleeping costs no CPU, spinning does.
  EXPECT_LT(t[static_cast<int>(Phase::Write)].cpu, 0.01);
  EXPECT_GT(t[static_cast<int>(Phase::Compute)].cpu, 0.01);
}

TEST(Accounting, IterationSeriesHoldsVisibleWriteTimeAndBytes) {
  Accounting a;
  a.switch_to(Phase::Compute);
  for (int it = 0; it < 3; ++it) {
    {
      PhaseScope write(a, Phase::Write);
      std::this_thread::sleep_for(std::chrono::milliseconds(5 * (it + 1)));
      a.add_bytes(100 * static_cast<std::uint64_t>(it + 1));
      a.end_iteration(it);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // compute: not counted
  }
  ASSERT_EQ(a.iterations().size(), 3u);
  for (int it = 0; it < 3; ++it) {
    const auto& r = a.iterations()[static_cast<std::size_t>(it)];
    EXPECT_EQ(r.iteration, it);
    EXPECT_EQ(r.bytes, 100.0 * (it + 1));
    EXPECT_GE(r.write_seconds, 0.005 * (it + 1) - 1e-4);
    EXPECT_LT(r.write_seconds, 0.005 * (it + 1) + 0.009) << "compute leaked into write";
  }
  EXPECT_EQ(a.bytes(), 600.0);
}

TEST(Accounting, StoreTimeOfTimePartitioningStaysWithItsIteration) {
  Accounting a;
  a.add_store(0, 0.25);  // the stores run inside end_iteration, before it is recorded
  a.end_iteration(0);
  a.add_store(1, 0.5);
  ASSERT_EQ(a.iterations().size(), 2u);
  EXPECT_EQ(a.iterations()[0].store_seconds, 0.25);
  EXPECT_EQ(a.iterations()[1].store_seconds, 0.5);
}

TEST(Accounting, ObserverSeesEveryChangeOnly) {
  Accounting a;
  std::vector<std::pair<Phase, Phase>> seen;
  a.on_change([&](Phase from, Phase to) { seen.emplace_back(from, to); });
  a.switch_to(Phase::Idle);
  a.switch_to(Phase::Idle);
  a.switch_to(Phase::Gather);
  EXPECT_EQ(seen, (std::vector<std::pair<Phase, Phase>>{{Phase::Setup, Phase::Idle},
                                                        {Phase::Idle, Phase::Gather}}));
}

TEST(Json, EscapesAndKeepsOrder) {
  ecluse::Json j = ecluse::Json::object();
  j["b"] = "quote \" backslash \\ newline \n";
  j["a"] = 1.5;
  j["list"] = ecluse::Json::Array{ecluse::Json(true), ecluse::Json(), ecluse::Json(3)};
  EXPECT_EQ(j.dump(0),
            "{\"b\":\"quote \\\" backslash \\\\ newline \\u000a\",\"a\":1.5,"
            "\"list\":[true,null,3]}");
}

}  // namespace
