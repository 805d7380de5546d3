// Phase accounting: phases add up to the wall time, scopes restore, iteration series and their
// trace, JSON.
#include <gtest/gtest.h>

#include <unistd.h>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
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
    PhaseScope wait(a, Phase::Wait);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(a.current(), Phase::Compute);
  a.close();
  const double wall = a.wall_seconds();
  EXPECT_NEAR(sum_wall(a), wall, 1e-3);
  const auto& t = a.totals();
  EXPECT_GE(t[static_cast<int>(Phase::Compute)].wall, 0.019);
  EXPECT_GE(t[static_cast<int>(Phase::Wait)].wall, 0.019);
  // Sleeping costs no CPU, spinning does.
  EXPECT_LT(t[static_cast<int>(Phase::Wait)].cpu, 0.01);
  EXPECT_GT(t[static_cast<int>(Phase::Compute)].cpu, 0.01);
}

// A server's store thread stored while the server's thread idled or gathered: that time is the
// store phase's, taken from idle first, then gather; the phases still add up to the wall time,
// and the store thread's CPU time is the store phase's.
TEST(Accounting, BackgroundStoreTimeMovesFromIdleThenGather) {
  Accounting a;
  a.switch_to(Phase::Gather);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  a.switch_to(Phase::Idle);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  a.close();
  const auto& t = a.totals();
  const double idle = t[static_cast<int>(Phase::Idle)].wall;
  const double gather = t[static_cast<int>(Phase::Gather)].wall;
  ASSERT_GE(idle, 0.029);
  a.add_background(Phase::Store, idle + gather / 2, 0.012);
  a.close();
  EXPECT_NEAR(t[static_cast<int>(Phase::Store)].wall, idle + gather / 2, 1e-3);
  EXPECT_EQ(t[static_cast<int>(Phase::Store)].cpu, 0.012);
  EXPECT_LT(t[static_cast<int>(Phase::Idle)].wall, 1e-3);  // what idled since the first close
  EXPECT_NEAR(t[static_cast<int>(Phase::Gather)].wall, gather / 2, 1e-3);
  EXPECT_NEAR(sum_wall(a), a.wall_seconds(), 1e-3);
  // More than this thread ever idled or gathered: the rest is not the rank's time.
  a.add_background(Phase::Store, 10, 0);
  a.close();
  EXPECT_NEAR(sum_wall(a), a.wall_seconds(), 1e-3);
}

// A Write is busy by definition (a sleep in it is a Wait): its CPU time is its wall time, and
// the CPU clock is not read on Compute -> Write -> Compute; the Compute phase gets the rest of
// the thread's CPU time at the next read, so the CPU times still add up.
TEST(Accounting, WriteCountsItsWallAsCpuAndTheCpuTimesAddUp) {
  const double cpu0 = ecluse::thread_cpu_clock();
  Accounting a;
  a.switch_to(Phase::Compute);
  for (int i = 0; i < 4; ++i) {
    busy(0.01);
    PhaseScope write(a, Phase::Write);
    busy(0.005);
  }
  {
    PhaseScope wait(a, Phase::Wait);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  busy(0.01);
  a.close();
  const double used = ecluse::thread_cpu_clock() - cpu0;
  const auto& t = a.totals();
  const auto& write = t[static_cast<int>(Phase::Write)];
  EXPECT_DOUBLE_EQ(write.cpu, write.wall);
  EXPECT_GE(write.cpu, 0.019);
  EXPECT_LT(t[static_cast<int>(Phase::Wait)].cpu, 0.005);
  double cpu = 0;
  for (const auto& p : t) cpu += p.cpu;
  EXPECT_NEAR(cpu, used, 0.005);
  EXPECT_GT(t[static_cast<int>(Phase::Compute)].cpu, 0.02);
}

TEST(Accounting, IterationSeriesHoldsVisibleWriteTimeAndBytes) {
  Accounting a;
  a.switch_to(Phase::Compute);
  for (int it = 0; it < 3; ++it) {
    {
      PhaseScope write(a, Phase::Write);
      std::this_thread::sleep_for(std::chrono::milliseconds(5 * (it + 1)));
      a.add_bytes(it == 1 ? 0 : 100 * static_cast<std::uint64_t>(it + 1));
      a.end_iteration(it);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(30));  // compute: not counted
  }
  const ecluse::IterationSeries& s = a.finish_series();
  EXPECT_EQ(s.counters.ended.count, 3);
  EXPECT_EQ(s.counters.outputs.count, 2);  // iteration 1 handed nothing over
  const auto& write = s.of(ecluse::Series::Write);
  EXPECT_EQ(write.count(), 2u);
  EXPECT_GE(write.min(), 0.005 - 1e-4);
  EXPECT_GE(write.max(), 0.015 - 1e-4);
  // A leak would add the 30 ms of compute; a loaded machine oversleeps by up to ~10 ms.
  EXPECT_LT(write.max(), 0.015 + 0.02) << "compute leaked into write";
  EXPECT_EQ(s.of(ecluse::Series::Quiet).count(), 1u);
  EXPECT_EQ(s.of(ecluse::Series::Bytes).sum(), 400.0);
  EXPECT_EQ(a.bytes(), 400.0);
}

TEST(Accounting, StoreTimeOfTimePartitioningStaysWithItsIteration) {
  Accounting a;
  a.add_store(0, 0.25, 1);  // the stores run inside end_iteration, before it is recorded
  a.add_bytes(8);
  a.end_iteration(0);
  a.add_store(1, 0.5, 0);
  a.add_store_errors(1, 2);  // a server learns of failures after the store time
  const ecluse::IterationSeries& s = a.finish_series();
  EXPECT_EQ(s.of(ecluse::Series::Store).sum(), 0.25);
  EXPECT_EQ(s.of(ecluse::Series::StoreEmpty).sum(), 0.5);
  EXPECT_EQ(s.counters.store_errors, 2.0);
  EXPECT_EQ(s.counters.failed.first, 1);
  EXPECT_EQ(s.counters.ended.count, 1);
  EXPECT_EQ(s.counters.stored.count, 2);
}

TEST(Accounting, TraceHasOneLinePerIterationAsItEnds) {
  Accounting a;
  std::vector<std::string> warnings;
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("ecluse-trace-" + std::to_string(::getpid()) + ".csv");
  a.trace_to(
      std::make_unique<ecluse::TraceFile>(path.string(), "ecluse-trace/1 rank=0",
                                          [&](const std::string& w) { warnings.push_back(w); }));
  a.add_store(0, 0.25, 3);
  a.add_bytes(8);
  a.end_iteration(0);
  a.add_store(1, 0.5, 0);
  a.add_store_errors(1, 1);
  a.finish_series();
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  std::filesystem::remove(path);
  const std::string head =
      "# ecluse-trace/1 rank=0\n" + std::string(ecluse::TraceFile::kColumns) + "\n0,1,";
  EXPECT_EQ(text.str().rfind(head, 0), 0u) << text.str();
  EXPECT_NE(text.str().find(",8,1,0.25,3,0\n1,0,0,0,1,0.5,0,1\n"), std::string::npos) << text.str();
  EXPECT_TRUE(warnings.empty());
}

TEST(Accounting, TraceThatCannotBeOpenedIsWarnedAbout) {
  std::vector<std::string> warnings;
  ecluse::TraceFile trace("no-such-directory/trace.csv", "h",
                          [&](const std::string& w) { warnings.push_back(w); });
  EXPECT_FALSE(trace.open());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "the iteration trace no-such-directory/trace.csv could not be opened (No such file "
            "or directory); the run goes on without it: check the directory of <report trace> "
            "or ECLUSE_TRACE.");
}

// Every switch, also to the same phase: the frequency governor applies a postponed lowering
// at a server's next idle slice.
TEST(Accounting, ObserverSeesEverySwitch) {
  Accounting a;
  std::vector<std::pair<Phase, Phase>> seen;
  a.on_switch([&](Phase from, Phase to) { seen.emplace_back(from, to); });
  a.switch_to(Phase::Idle);
  a.switch_to(Phase::Idle);
  a.switch_to(Phase::Gather);
  EXPECT_EQ(seen, (std::vector<std::pair<Phase, Phase>>{{Phase::Setup, Phase::Idle},
                                                        {Phase::Idle, Phase::Idle},
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

// Bytes that are not UTF-8 (a path in Latin-1, a cut message) become U+FFFD, so the report
// stays JSON; well-formed sequences (2, 3 and 4 bytes) pass unchanged.
TEST(Json, TextThatIsNotUtf8BecomesReplacementCharacters) {
  ecluse::Json j = ecluse::Json::object();
  j["path"] = std::string("caf\xe9/") + "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80" + "\xed\xa0\x80" +
              "\xc0\xaf" + "\xe2\x82";
  EXPECT_EQ(j.dump(0),
            "{\"path\":\"caf\\ufffd/\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
            "\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"}");
}

TEST(Json, NumbersReadBackAsTheSameDouble) {
  ecluse::Json j = ecluse::Json::array();
  j.push_back(0.1 + 0.2).push_back(3e-05).push_back(1.0 / 3).push_back(12345678901.0);
  EXPECT_EQ(j.dump(0), "[0.30000000000000004,3e-05,0.3333333333333333,12345678901]");
}

}  // namespace
