// RAPL through a fake powercap tree: zones keyed by name (psys at intel-rapl:1), what is summed,
// a counter wrap between two reads, and the message when energy_uj is refused (EACCES).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "FakeTree.hpp"
#include "ecluse/Error.hpp"
#include "energy/EnergyRegistry.hpp"
#include "energy/RaplSource.hpp"

namespace ecluse {
namespace {

const std::string kPowercap = "/sys/class/powercap/";
const char* const kRange = "262143328850\n";

void zone(const test::FakeTree& tree, const std::string& entry, const std::string& name,
          std::uint64_t microjoules) {
  tree.write(kPowercap + entry + "/name", name + "\n");
  tree.write(kPowercap + entry + "/energy_uj", std::to_string(microjoules) + "\n");
  tree.write(kPowercap + entry + "/max_energy_range_uj", kRange);
}

// Two packages with DRAM, a core sub-zone, and psys at index 1 where a package could be.
void two_packages(const test::FakeTree& tree) {
  tree.write(kPowercap + "intel-rapl/enabled", "1\n");  // the control type: not a zone
  zone(tree, "intel-rapl:0", "package-0", 1000000);
  zone(tree, "intel-rapl:0:0", "dram", 500000);
  zone(tree, "intel-rapl:0:1", "core", 700000);
  zone(tree, "intel-rapl:1", "psys", 9000000);
  zone(tree, "intel-rapl:2", "package-1", 2000000);
  zone(tree, "intel-rapl:2:0", "dram", 300000);
}

void energy(const test::FakeTree& tree, const std::string& entry, std::uint64_t microjoules) {
  tree.write(kPowercap + entry + "/energy_uj", std::to_string(microjoules) + "\n");
}

TEST(EnergyRapl, ZonesAreKeyedByNameAndOnlyPackagesAndDramAreSummed) {
  test::FakeTree tree;
  two_packages(tree);
  RaplSource rapl{SysfsFiles(tree.root())};
  energy(tree, "intel-rapl:0", 11000000);   // package-0 +10 J
  energy(tree, "intel-rapl:0:0", 2500000);  // its dram +2 J
  energy(tree, "intel-rapl:0:1", 5700000);  // core +5 J: inside package-0
  energy(tree, "intel-rapl:1", 59000000);   // psys +50 J: never added to packages
  energy(tree, "intel-rapl:2", 22000000);   // package-1 +20 J
  energy(tree, "intel-rapl:2:0", 3300000);  // its dram +3 J
  const EnergyReading r = rapl.read();
  EXPECT_EQ(r.source, "rapl");
  EXPECT_EQ(r.quality, EnergyQuality::MeasuredPartial);
  EXPECT_STREQ(to_string(r.quality), "measured-partial");
  EXPECT_EQ(r.calibration, "");
  ASSERT_EQ(r.zones.size(), 6u);
  const std::vector<std::pair<std::string, std::uint64_t>> expected = {
      {"package-0", 10000000}, {"package-0/dram", 2000000}, {"package-0/core", 5000000},
      {"psys", 50000000},      {"package-1", 20000000},     {"package-1/dram", 3000000}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(r.zones[i].zone, expected[i].first);
    EXPECT_EQ(r.zones[i].microjoules, expected[i].second) << expected[i].first;
  }
  EXPECT_FALSE(r.find("psys")->in_total);
  EXPECT_FALSE(r.find("package-0/core")->in_total);
  EXPECT_EQ(r.total_microjoules(), 35000000u);  // 10 + 2 + 20 + 3 J
  EXPECT_DOUBLE_EQ(r.total_joules(), 35.0);
}

TEST(EnergyRapl, WrapBetweenTwoReadsIsFoldedInto64BitAccumulator) {
  test::FakeTree tree;
  zone(tree, "intel-rapl:0", "package-0", 262143000000);  // 328850 uJ below the range
  RaplSource rapl{SysfsFiles(tree.root())};
  energy(tree, "intel-rapl:0", 671150);  // wrapped: 328850 + 671150 = 1000000 uJ
  EXPECT_EQ(rapl.read().find("package-0")->microjoules, 1000000u);
  energy(tree, "intel-rapl:0", 2671150);  // +2 J, no wrap
  EXPECT_EQ(rapl.read().find("package-0")->microjoules, 3000000u);
  // Three times almost the whole range: the sum exceeds both the range and 2^32.
  for (std::uint64_t value : {262000000000ull, 261000000000ull, 260000000000ull}) {
    energy(tree, "intel-rapl:0", value);
    rapl.read();
  }
  energy(tree, "intel-rapl:0", 2671150);
  // Deltas: (262000000000 - 2671150) + (261000000000 + R - 262000000000)
  //   + (260000000000 + R - 261000000000) + (2671150 + R - 260000000000) = 3R, R = 262143328850
  EXPECT_EQ(rapl.read().find("package-0")->microjoules, 3000000ull + 3ull * 262143328850ull);
  EXPECT_EQ(RaplSource::wrapped_delta(90, 10, 100), 20u);
  EXPECT_EQ(RaplSource::wrapped_delta(10, 90, 100), 80u);
}

// Running as root, chmod would not block the read: the open hook returns EACCES instead, as the
// kernel does for a non-root reader of a 0400 energy_uj, and the real error path runs.
SysfsFiles::OpenFn refuse(const std::string& suffix) {
  return [suffix](const char* path, int flags) {
    const std::string p = path;
    if (p.size() >= suffix.size() &&
        p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0) {
      errno = EACCES;
      return -1;
    }
    return ::open(path, flags);
  };
}

std::string expected_eacces(const test::FakeTree& tree) {
  const std::string file = tree.path(kPowercap + "intel-rapl:0/energy_uj");
  return "rapl: cannot read " + file +
         ": permission denied (energy_uj is readable by root only since the CVE-2020-8694 "
         "fix); run as root, or make it readable (sudo chmod a+r " +
         file + "), or use the model";
}

TEST(EnergyRapl, UnreadableEnergyGivesClearMessageAndProbeFallsBackToModel) {
  test::FakeTree tree;
  two_packages(tree);
  tree.write("/proc/stat", "cpu  1 0 1 10 0 0 0 0 0 0\n");
  const auto hook = refuse("intel-rapl:0/energy_uj");
  try {
    RaplSource rapl{SysfsFiles(tree.root(), hook)};
    FAIL() << "RaplSource read an unreadable energy_uj";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), ECLUSE_IO_ERROR);
    EXPECT_EQ(std::string(e.what()), expected_eacces(tree));
  }
  ProbeContext context;
  context.root = tree.root();
  context.open = hook;
  context.load_nvml = [](std::string& reason) -> std::optional<NvmlApi> {
    reason = "libnvidia-ml.so.1 not found (fake)";
    return std::nullopt;
  };
  const ProbeResult probe = probe_energy_source(context);
  EXPECT_EQ(probe.source->name(), "model");
  ASSERT_EQ(probe.skipped.size(), 3u);
  EXPECT_EQ(probe.skipped[1], expected_eacces(tree));
  EXPECT_EQ(probe.skipped[2], "nvml: libnvidia-ml.so.1 not found (fake)");
}

// psys readable by root only, packages and dram readable (seen on real nodes): psys is left
// out and the packages are measured (the whole source was refused before).
TEST(EnergyRapl, AnUnreadableZoneOutsideTheTotalIsLeftOut) {
  test::FakeTree tree;
  two_packages(tree);
  RaplSource rapl{SysfsFiles(tree.root(), refuse("intel-rapl:1/energy_uj"))};
  energy(tree, "intel-rapl:0", 11000000);  // package-0 +10 J
  const EnergyReading r = rapl.read();
  EXPECT_EQ(r.find("psys"), nullptr);
  ASSERT_EQ(r.zones.size(), 5u);
  EXPECT_EQ(r.total_microjoules(), 10000000u);
}

// Without root, the kernel's own refusal goes through the same path.
TEST(EnergyRapl, RealPermissionDeniedWhenNotRoot) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads 0000 files; covered by the open hook above";
  test::FakeTree tree;
  two_packages(tree);
  ASSERT_EQ(::chmod(tree.path(kPowercap + "intel-rapl:0/energy_uj").c_str(), 0), 0);
  try {
    RaplSource rapl{SysfsFiles(tree.root())};
    FAIL() << "RaplSource read an unreadable energy_uj";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), expected_eacces(tree));
  }
}

}  // namespace
}  // namespace ecluse
