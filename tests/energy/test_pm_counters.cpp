// pm_counters through a fake /sys/cray/pm_counters: a consistent reading although freshness
// moves during the read, a controller restart (startup changes), values with trailing timestamp.
#include <fcntl.h>
#include <gtest/gtest.h>

#include "FakeTree.hpp"
#include "ecluse/Error.hpp"
#include "energy/PmCountersSource.hpp"

namespace ecluse {
namespace {

const std::string kDir = "/sys/cray/pm_counters/";

void counters(const test::FakeTree& tree, const std::string& energy) {
  tree.write(kDir + "energy", energy);
  tree.write(kDir + "cpu_energy", "400 J\n");
  tree.write(kDir + "memory_energy", "100 J\n");
  tree.write(kDir + "power", "85 W\n");
  tree.write(kDir + "freshness", "7\n");
  tree.write(kDir + "startup", "1599999999\n");
  tree.write(kDir + "version", "2\n");
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

TEST(EnergyPmCounters, LeadingIntegerWithUnitAndTrailingTimestamp) {
  test::FakeTree tree;
  counters(tree, "1000 J 1599999999000000 us\n");
  PmCountersSource pm{SysfsFiles(tree.root())};
  tree.write(kDir + "energy", "1250 J 1600000000000000 us\n");
  const EnergyReading r = pm.read();
  EXPECT_EQ(r.source, "pm_counters");
  EXPECT_STREQ(to_string(r.quality), "measured");
  EXPECT_EQ(r.find("node")->microjoules, 250000000u);
  EXPECT_EQ(r.find("cpu")->microjoules, 0u);
  EXPECT_FALSE(r.find("cpu")->in_total);
  EXPECT_EQ(r.find("accel"), nullptr);  // no accel_energy file on this node
  EXPECT_EQ(r.total_microjoules(), 250000000u);
  EXPECT_EQ(parse_leading_uint("598732067 J\n", "f"), 598732067u);
  EXPECT_EQ(parse_leading_uint("85 W 1599999999999999 us\n", "f"), 85u);
  try {
    (void)parse_leading_uint("n/a\n", "/x/energy");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "/x/energy holds 'n/a', not an unsigned integer");
  }
}

// The hook runs inside the reader's open(): at the second open of freshness (the check that
// ends the first attempt) the controller "updates" the files, so the first attempt is torn.
TEST(EnergyPmCounters, FreshnessMovingDuringReadIsRetried) {
  test::FakeTree tree;
  counters(tree, "1000 J\n");
  int freshness_opens = 0;
  bool armed = false;
  auto hook = [&](const char* path, int flags) {
    if (armed && ends_with(path, "/freshness") && ++freshness_opens == 2) {
      tree.write(kDir + "freshness", "8\n");
      tree.write(kDir + "energy", "1600 J\n");
    }
    return ::open(path, flags);
  };
  PmCountersSource pm{SysfsFiles(tree.root(), hook)};
  tree.write(kDir + "energy", "1500 J\n");
  armed = true;
  const EnergyReading r = pm.read();
  EXPECT_EQ(freshness_opens, 4);                       // two attempts, two checks each
  EXPECT_EQ(r.find("node")->microjoules, 600000000u);  // 1600 - 1000, not the torn 1500
}

TEST(EnergyPmCounters, FreshnessAlwaysMovingIsAnError) {
  test::FakeTree tree;
  counters(tree, "1000 J\n");
  int tick = 0;
  bool armed = false;
  auto hook = [&](const char* path, int flags) {
    if (armed && ends_with(path, "/freshness")) {
      tree.write(kDir + "freshness", std::to_string(++tick) + "\n");
    }
    return ::open(path, flags);
  };
  PmCountersSource pm{SysfsFiles(tree.root(), hook)};
  armed = true;
  try {
    pm.read();
    FAIL() << "a reading whose freshness always moved was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "pm_counters: " + tree.path(kDir + "freshness") +
                  " moved during each of 10 consecutive reads; no consistent reading");
  }
}

TEST(EnergyPmCounters, StartupChangeResetsTheBase) {
  test::FakeTree tree;
  counters(tree, "1000 J\n");
  PmCountersSource pm{SysfsFiles(tree.root())};
  tree.write(kDir + "energy", "1500 J\n");
  EXPECT_EQ(pm.read().find("node")->microjoules, 500000000u);
  tree.write(kDir + "startup", "1600000500\n");  // controller restarted: counters from ~0
  tree.write(kDir + "energy", "20 J\n");
  const EnergyReading restarted = pm.read();
  EXPECT_EQ(restarted.find("node")->microjoules, 500000000u);  // nothing lost, nothing invented
  EXPECT_EQ(restarted.note,
            "power controller restarted (startup 1599999999 -> 1600000500); counting restarted "
            "from its new values");
  tree.write(kDir + "energy", "70 J\n");
  EXPECT_EQ(pm.read().find("node")->microjoules, 550000000u);  // 500 + (70 - 20)
}

TEST(EnergyPmCounters, AbsentOnOrdinaryNode) {
  test::FakeTree tree;
  try {
    PmCountersSource pm{SysfsFiles(tree.root())};
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "no " + tree.path(kDir + "energy") + " (not a Cray/HPE node)");
  }
}

}  // namespace
}  // namespace ecluse
