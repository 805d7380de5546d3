// Probing on fake trees: the order pm_counters, RAPL, NVML, model, the reasons given for the
// sources skipped; NVML through a replaced function table; the registry described as data.
#include <gtest/gtest.h>

#include "FakeTree.hpp"
#include "ecluse/Error.hpp"
#include "energy/EnergyRegistry.hpp"

namespace ecluse {
namespace {

std::optional<NvmlApi> no_nvml(std::string& reason) {
  reason = "libnvidia-ml.so.1 not found (fake)";
  return std::nullopt;
}

ProbeContext context_for(const test::FakeTree& tree) {
  ProbeContext context;
  context.root = tree.root();
  context.calibration = explicit_calibration(50, 150, "probe-test");
  context.load_nvml = no_nvml;
  return context;
}

TEST(EnergyProbe, PlainNodeGetsTheModelWithReasons) {
  test::FakeTree tree;
  tree.write("/proc/stat", "cpu  1 0 1 10 0 0 0 0 0 0\n");
  const ProbeResult probe = probe_energy_source(context_for(tree));
  ASSERT_NE(probe.source, nullptr);
  EXPECT_EQ(probe.source->name(), "model");
  EXPECT_EQ(probe.source->read().calibration, "probe-test");
  const std::vector<std::string> expected = {
      "pm_counters: no " + tree.path("/sys/cray/pm_counters/energy") + " (not a Cray/HPE node)",
      "rapl: no RAPL zone under " + tree.path("/sys/class/powercap"),
      "nvml: libnvidia-ml.so.1 not found (fake)"};
  EXPECT_EQ(probe.skipped, expected);
}

TEST(EnergyProbe, CrayNodePrefersPmCountersOverRapl) {
  test::FakeTree tree;
  tree.write("/sys/cray/pm_counters/energy", "5 J\n");
  tree.write("/sys/cray/pm_counters/freshness", "1\n");
  tree.write("/sys/class/powercap/intel-rapl:0/name", "package-0\n");
  tree.write("/sys/class/powercap/intel-rapl:0/energy_uj", "1\n");
  tree.write("/sys/class/powercap/intel-rapl:0/max_energy_range_uj", "100\n");
  const ProbeResult probe = probe_energy_source(context_for(tree));
  EXPECT_EQ(probe.source->name(), "pm_counters");
  EXPECT_TRUE(probe.skipped.empty());
  tree.write("/sys/cray/pm_counters/energy", "");  // no longer a number: pm_counters refused
  const ProbeResult rapl = probe_energy_source(context_for(tree));
  EXPECT_EQ(rapl.source->name(), "rapl");
  EXPECT_EQ(rapl.skipped,
            std::vector<std::string>{"pm_counters: " + tree.path("/sys/cray/pm_counters/energy") +
                                     " holds '', not an unsigned integer"});
}

struct FakeGpus {
  unsigned long long energy[2] = {5000, 7000};  // mJ since driver load
  int shutdowns = 0;
};

NvmlApi fake_nvml(FakeGpus& gpus) {
  return {[] { return 0; }, [&gpus] { return ++gpus.shutdowns, 0; },
          [](unsigned* count) { return *count = 2, 0; },
          [&gpus](unsigned i, void** device) { return *device = &gpus.energy[i], 0; },
          [](void* device, unsigned long long* mj) {
            return *mj = *static_cast<unsigned long long*>(device), 0;
          }};
}

TEST(EnergyProbe, NvmlThroughReplacedFunctionTable) {
  test::FakeTree tree;
  FakeGpus gpus;
  ProbeContext context = context_for(tree);
  context.load_nvml = [&gpus](std::string&) -> std::optional<NvmlApi> { return fake_nvml(gpus); };
  {
    const ProbeResult probe = probe_energy_source(context);
    ASSERT_EQ(probe.source->name(), "nvml");
    gpus.energy[0] = 6500;  // +1.5 J
    gpus.energy[1] = 7250;  // +0.25 J
    const EnergyReading r = probe.source->read();
    EXPECT_STREQ(to_string(r.quality), "measured-partial");
    EXPECT_EQ(r.find("gpu-0")->microjoules, 1500000u);
    EXPECT_EQ(r.find("gpu-1")->microjoules, 250000u);
    EXPECT_EQ(r.total_microjoules(), 1750000u);
  }
  EXPECT_EQ(gpus.shutdowns, 1);
}

TEST(EnergyProbe, RealNvmlAbsentHereIsSkippedWithReason) {
  std::string reason;
  if (load_nvml(reason)) GTEST_SKIP() << "this machine has NVML";
  EXPECT_EQ(reason.rfind("libnvidia-ml.so.1 not found (", 0), 0u) << reason;
}

TEST(EnergyProbe, RegistryListsSourcesInProbeOrderWithOptions) {
  std::vector<std::string> names;
  for (const auto& entry : energy_registry().entries()) names.push_back(entry.spec->name);
  EXPECT_EQ(names, (std::vector<std::string>{"pm_counters", "rapl", "nvml", "model"}));
  const PluginSpec* model = find_energy_source_spec("model");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(model->options[1].key, "calibration");
  EXPECT_EQ(find_energy_source_spec("watts-up"), nullptr);
}

}  // namespace
}  // namespace ecluse
