// The utilization model on /proc/stat snapshots with known utilization (exact joules), steal
// kept out and reported, calibration files, apportioning per role, and the background ticker.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "FakeTree.hpp"
#include "ecluse/Error.hpp"
#include "energy/Calibration.hpp"
#include "energy/EnergyApportioner.hpp"
#include "energy/EnergyTicker.hpp"
#include "energy/ModelSource.hpp"

namespace ecluse {
namespace {

//                   user nice system idle iowait irq softirq steal guest guest_nice
const char* const kStat0 = "cpu  1000 0 500 8000 500 0 0 200 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n";
const char* const kStat1 = "cpu  1300 50 600 8400 600 25 25 300 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n";
const char* const kStat2 = "cpu  1300 50 600 8900 600 25 25 300 0 0\n";

TEST(EnergyModel, KnownUtilizationGivesExactJoulesAndStealIsReported) {
  test::FakeTree tree;
  tree.write("/proc/stat", kStat0);
  double now = 100;
  ModelSource model(SysfsFiles(tree.root()), explicit_calibration(100, 300, "test-node"),
                    [&] { return now; });
  // Interval 1, 10 s: busy = 300 user + 50 nice + 100 system + 25 irq + 25 softirq = 500 ticks,
  // idle = 400 idle + 100 iowait = 500 ticks, steal = 100 ticks (neither busy nor idle):
  // u = 500 / 1000 = 0.5, P = 100 + (300 - 100) * 0.5 = 200 W, E = 200 W * 10 s = 2000 J.
  tree.write("/proc/stat", kStat1);
  now = 110;
  const EnergyReading r1 = model.read();
  EXPECT_EQ(r1.source, "model");
  EXPECT_STREQ(to_string(r1.quality), "modelled");
  EXPECT_EQ(r1.calibration, "test-node");
  EXPECT_DOUBLE_EQ(r1.timestamp, 110);
  EXPECT_DOUBLE_EQ(model.last_utilization(), 0.5);
  EXPECT_EQ(r1.find("node")->microjoules, 2000000000u);
  EXPECT_EQ(r1.steal_ticks, 100u);
  EXPECT_EQ(r1.note, "");
  // Interval 2, 5 s: 500 idle ticks only: u = 0, P = 100 W, E = 500 J; total 2500 J.
  tree.write("/proc/stat", kStat2);
  now = 115;
  const EnergyReading r2 = model.read();
  EXPECT_EQ(r2.find("node")->microjoules, 2500000000u);
  EXPECT_EQ(r2.steal_ticks, 100u);
  EXPECT_DOUBLE_EQ(model.power(1.0), 300);
}

TEST(EnergyModel, CpuTimesSplit) {
  const CpuTimes t = CpuTimes::parse(kStat1);
  EXPECT_EQ(t.busy, 2000u);  // 1300 + 50 + 600 + 25 + 25
  EXPECT_EQ(t.idle, 9000u);  // 8400 + 600
  EXPECT_EQ(t.steal, 300u);
  EXPECT_DOUBLE_EQ(CpuTimes::utilization(t, t), 0.0);  // no tick elapsed
  try {
    (void)CpuTimes::parse("intr 1 2 3\n");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "/proc/stat does not start with the aggregate 'cpu' line");
  }
}

TEST(EnergyModel, DefaultCalibrationIsLabelled) {
  test::FakeTree tree;
  tree.write("/proc/stat", kStat0);
  double now = 0;
  ModelSource model(SysfsFiles(tree.root()), default_calibration(), [&] { return now; });
  now = 2;  // no tick: u = 0, P = P_idle = 100 W, 200 J
  const EnergyReading r = model.read();
  EXPECT_EQ(r.calibration, "default-uncalibrated");
  EXPECT_EQ(r.find("node")->microjoules, 200000000u);
  EXPECT_EQ(r.note,
            "default calibration: built-in default (no calibration given): P_idle 100 W, P_max "
            "250 W");
}

const char* const kCalibrationFile =
    "# measured on 2024-03-01\n"
    "[host nid00*]\n"
    "id = ex-nodes-2024\n"
    "idle_watts = 110\n"
    "max_watts = 390.5\n"
    "\n"
    "[cpu AMD EPYC 7763*]\n"
    "idle_watts = 95\n"
    "max_watts = 280\n";

TEST(EnergyModel, CalibrationFileMatchesHostOrCpuModel) {
  test::FakeTree tree;
  tree.write("/calibration.ini", kCalibrationFile);
  tree.write("/proc/sys/kernel/hostname", "login1\n");
  tree.write("/proc/cpuinfo", "processor\t: 0\nmodel name\t: AMD EPYC 7763 64-Core Processor\n");
  const SysfsFiles files(tree.root());
  const std::string file = tree.path("/calibration.ini");
  const Calibration by_cpu = load_calibration(file, host_name(files), cpu_model(files));
  EXPECT_EQ(by_cpu.id, file + ":7");  // no id given: file and line of the section
  EXPECT_DOUBLE_EQ(by_cpu.idle_watts, 95);
  EXPECT_DOUBLE_EQ(by_cpu.max_watts, 280);
  EXPECT_EQ(by_cpu.origin, file + " [cpu AMD EPYC 7763*]");
  const Calibration by_host = load_calibration(file, "nid001234", "Intel Xeon");
  EXPECT_EQ(by_host.id, "ex-nodes-2024");
  EXPECT_DOUBLE_EQ(by_host.max_watts, 390.5);
  const Calibration none = load_calibration(file, "laptop", "Intel Core i7");
  EXPECT_TRUE(none.is_default);
  EXPECT_EQ(none.id, "default-uncalibrated");
  EXPECT_EQ(none.origin, "built-in default: no section of " + file +
                             " matches host 'laptop' or CPU 'Intel Core i7'");
}

void expect_calibration_error(const std::string& text, const std::string& message) {
  test::FakeTree tree;
  tree.write("/c.ini", text);
  try {
    (void)load_calibration(tree.path("/c.ini"), "h", "c");
    FAIL() << "accepted: " << text;
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), ECLUSE_CONFIG_ERROR);
    EXPECT_EQ(std::string(e.what()), tree.path("/c.ini") + message);
  }
}

TEST(EnergyModel, CalibrationFileErrorsNameFileAndLine) {
  expect_calibration_error("[host *]\nidle = 3\n",
                           ":2: unknown key 'idle'; known keys: id, idle_watts, max_watts");
  expect_calibration_error("[rack 3]\n",
                           ":1: section '[rack 3]' must be [host PATTERN] or [cpu PATTERN]");
  expect_calibration_error("[host *]\nidle_watts = 3\n",
                           ":1: section needs both idle_watts and max_watts");
  expect_calibration_error("[host *]\nidle_watts = 300\nmax_watts = 200\n",
                           ":1: idle_watts (300) is above max_watts (200)");
  expect_calibration_error("[host *]\nidle_watts = 3W\n", ":2: '3W' is not a number of watts");
  expect_calibration_error("idle_watts = 3\n",
                           ":1: key before the first [host PATTERN] or [cpu PATTERN] section");
  try {
    (void)explicit_calibration(-1, 10, "x");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "calibration 'x': idle_watts and max_watts must be finite and non-negative");
  }
}

TEST(EnergyModel, ApportionedByCpuTime) {
  EnergyReading labels{"rapl", EnergyQuality::MeasuredPartial, "", 0, {}, 0, ""};
  const auto shares =
      EnergyApportioner::split(1000, labels, {{"simulation", 30}, {"dedicated-core", 10}});
  ASSERT_EQ(shares.size(), 2u);
  EXPECT_EQ(shares[0].role, "simulation");
  EXPECT_DOUBLE_EQ(shares[0].joules, 750);
  EXPECT_DOUBLE_EQ(shares[1].joules, 250);
  EXPECT_EQ(shares[1].label, "apportioned");
  EXPECT_EQ(shares[1].source, "rapl");
  EXPECT_EQ(shares[1].quality, EnergyQuality::MeasuredPartial);
  const auto idle = EnergyApportioner::split(90, labels, {{"a", 0}, {"b", 0}, {"c", 0}});
  EXPECT_DOUBLE_EQ(idle[2].joules, 30);  // no CPU time at all: evenly
  EXPECT_GE(EnergyApportioner::process_cpu_seconds(), 0.0);
}

/** Counts its reads; throws when told to. */
class CountingSource final : public EnergySource {
 public:
  [[nodiscard]] std::string name() const override { return "fake"; }
  [[nodiscard]] EnergyQuality quality() const override { return EnergyQuality::Measured; }
  EnergyReading read() override {
    const int n = ++reads;
    if (fail) throw Error(ECLUSE_IO_ERROR, "fake: unplugged");
    return {"fake", quality(), "", 0, {{"node", static_cast<std::uint64_t>(n), true}}, 0, ""};
  }
  std::atomic<int> reads{0};
  std::atomic<bool> fail{false};
};

TEST(EnergyTicker, ReadsInBackgroundAndStopsPromptly) {
  CountingSource source;
  {
    EnergyTicker ticker(source, std::chrono::milliseconds(5));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (ticker.ticks() < 3 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_GE(ticker.ticks(), 3u);
    ASSERT_TRUE(ticker.last().has_value());
    source.fail = true;
    const std::uint64_t seen = ticker.ticks();
    while (ticker.ticks() < seen + 2 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_EQ(ticker.last_error(), "fake: unplugged");  // kept, not thrown
  }
  source.fail = false;
  const auto start = std::chrono::steady_clock::now();
  EnergyTicker slow(source);  // default period 10 s: stop must not wait for it
  const int before = source.reads;
  EXPECT_EQ(slow.read_now().zones[0].microjoules, static_cast<std::uint64_t>(before + 1));
  slow.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_EQ(slow.ticks(), 0u);
  EXPECT_THROW(EnergyTicker(source, std::chrono::milliseconds(0)), Error);
}

}  // namespace
}  // namespace ecluse
