// Frequency control on fake cpufreq trees: policy parsing, acpi-cpufreq with the userspace
// governor, intel_pstate clamping, restore (also after SIGTERM), and degrading without permission.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sched.h>

#include <chrono>
#include <csetjmp>
#include <csignal>
#include <cstdlib>
#include <map>
#include <thread>

#include "FakeTree.hpp"
#include "accounting/Accounting.hpp"
#include "config/FrequencyPolicy.hpp"
#include "core/Log.hpp"
#include "ecluse/Error.hpp"
#include "frequency/CpufreqController.hpp"
#include "frequency/FrequencyGovernor.hpp"
#include "frequency/FrequencyRegistry.hpp"
#include "frequency/FrequencyRestorer.hpp"
#include "frequency/PolicySharing.hpp"

namespace ecluse {
namespace {

const char* const kFiles[] = {"scaling_driver",
                              "scaling_available_governors",
                              "scaling_governor",
                              "scaling_setspeed",
                              "cpuinfo_min_freq",
                              "cpuinfo_max_freq",
                              "scaling_min_freq",
                              "scaling_max_freq",
                              "scaling_available_frequencies"};

void cpu(const test::FakeTree& tree, int n, const std::map<std::string, std::string>& values) {
  for (const auto& [file, value] : values) tree.write(cpufreq_file(n, file), value + "\n");
}

// acpi-cpufreq: cpus 0-2 under schedutil, cpu 3 already under userspace at 2.4 GHz.
void acpi_tree(const test::FakeTree& tree) {
  for (int n = 0; n < 4; ++n) {
    cpu(tree, n,
        {{"scaling_driver", "acpi-cpufreq"},
         {"scaling_available_governors",
          "conservative ondemand userspace powersave performance "
          "schedutil"},
         {"scaling_governor", n == 3 ? "userspace" : "schedutil"},
         {"scaling_setspeed", n == 3 ? "2400000" : "<unsupported>"},
         {"cpuinfo_min_freq", "1200000"},
         {"cpuinfo_max_freq", "3000000"},
         {"scaling_min_freq", "1200000"},
         {"scaling_max_freq", "3000000"},
         {"scaling_available_frequencies", "3000000 2400000 1800000 1200000"},
         {"related_cpus", std::to_string(n)}});
  }
}

// intel_pstate in active mode: no userspace governor; an administrator raised the minimum.
void pstate_tree(const test::FakeTree& tree) {
  for (int n = 0; n < 2; ++n) {
    cpu(tree, n,
        {{"scaling_driver", "intel_pstate"},
         {"scaling_available_governors", "performance powersave"},
         {"scaling_governor", "powersave"},
         {"scaling_setspeed", "<unsupported>"},
         {"cpuinfo_min_freq", "800000"},
         {"cpuinfo_max_freq", "4000000"},
         {"scaling_min_freq", "2000000"},
         {"scaling_max_freq", "4000000"}});
  }
}

std::string value(const test::FakeTree& tree, int n, const std::string& file) {
  return trim(tree.read(cpufreq_file(n, file)));
}

std::map<std::string, std::string> snapshot(const test::FakeTree& tree, int cpus) {
  std::map<std::string, std::string> files;
  for (int n = 0; n < cpus; ++n) {
    for (const char* file : kFiles) files[cpufreq_file(n, file)] = value(tree, n, file);
  }
  return files;
}

TEST(EnergyFrequencyPolicy, ParsesRolesWhensAndTargets) {
  const FrequencyPolicy p = FrequencyPolicy::parse("dedicated-core", "idle", "1.2GHz");
  EXPECT_EQ(p.role, Role::DedicatedCore);
  EXPECT_EQ(p.when, FrequencyWhen::Idle);
  EXPECT_FALSE(p.target.is_fraction);
  EXPECT_EQ(p.target.khz, 1200000u);
  EXPECT_EQ(FrequencyPolicy::parse("dedicated-node", "writing", "1200MHz").target.khz, 1200000u);
  EXPECT_EQ(FrequencyPolicy::parse("simulation", "always", "1500000kHz").target.khz, 1500000u);
  const FrequencyTarget percent = FrequencyTarget::parse("60%");
  EXPECT_TRUE(percent.is_fraction);
  EXPECT_DOUBLE_EQ(percent.fraction, 0.6);
  EXPECT_DOUBLE_EQ(FrequencyTarget::parse("0.6").fraction, 0.6);
  EXPECT_EQ(FrequencyTarget::parse("50%").resolve(1200000, 3000000), 1500000u);
  EXPECT_EQ(FrequencyTarget::parse("10%").resolve(1200000, 3000000), 1200000u);  // clamped
  EXPECT_EQ(FrequencyTarget::parse("5GHz").resolve(1200000, 3000000), 3000000u);
  EXPECT_EQ(FrequencyTarget::parse("50%").to_string(), "50% of cpuinfo_max_freq");
}

void expect_policy_error(const std::string& role, const std::string& when,
                         const std::string& target, const std::string& message) {
  try {
    (void)FrequencyPolicy::parse(role, when, target);
    FAIL() << "accepted " << role << " " << when << " " << target;
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), ECLUSE_CONFIG_ERROR);
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST(EnergyFrequencyPolicy, ErrorsSayWhatIsAllowed) {
  const std::string forms = "write e.g. 1200000kHz, 1200MHz, 1.2GHz, 60% or 0.6";
  expect_policy_error("server", "idle", "50%",
                      "frequency role 'server' is not one of dedicated-core, dedicated-node, "
                      "simulation");
  expect_policy_error("dedicated-core", "sometimes", "50%",
                      "frequency when 'sometimes' is not one of idle, writing, always");
  expect_policy_error("dedicated-core", "idle", "1200",
                      "frequency target '1200' has no unit; " + forms);
  expect_policy_error("dedicated-core", "idle", "150%",
                      "frequency target '150%' is above 100% of the maximum frequency");
  expect_policy_error("dedicated-core", "idle", "fastGHz",
                      "frequency target 'fastGHz' is not a frequency; " + forms);
  expect_policy_error("dedicated-core", "idle", "0", "frequency target '0' must be above 0");
}

std::vector<std::string> lines;
void collect(const std::string& line) {
  lines.push_back(line);
}

TEST(EnergyFrequency, AcpiCpufreqUserspaceAppliesAndRestoresEveryValue) {
  test::FakeTree tree;
  acpi_tree(tree);
  const auto before = snapshot(tree, 4);
  lines.clear();
  auto controller = make_frequency_controller(SysfsFiles(tree.root()), 0, collect);
  EXPECT_EQ(controller->describe(), "cpufreq userspace governor + scaling_setspeed (acpi-cpufreq)");
  // 50% of 3 GHz = 1.5 GHz; the highest available frequency not above it is 1.2 GHz.
  controller->apply(FrequencyTarget::parse("50%"), {2, 3});
  EXPECT_EQ(value(tree, 2, "scaling_governor"), "userspace");
  EXPECT_EQ(value(tree, 2, "scaling_setspeed"), "1200000");
  EXPECT_EQ(value(tree, 3, "scaling_setspeed"), "1200000");
  EXPECT_EQ(value(tree, 1, "scaling_governor"), "schedutil");  // not asked for
  EXPECT_EQ(controller->actions(),
            (std::vector<std::string>{
                "cpu 2: governor userspace, scaling_setspeed 1200000 kHz (target 50% of "
                "cpuinfo_max_freq)",
                "cpu 3: governor userspace, scaling_setspeed 1200000 kHz (target 50% of "
                "cpuinfo_max_freq)"}));
  controller->apply(FrequencyTarget::parse("2.4GHz"), {2, 3});  // saved values stay the first
  controller->restore();
  auto after = snapshot(tree, 4);
  // cpu 2's scaling_setspeed is a plain file here; the kernel shows "<unsupported>" again by
  // itself once the governor is back to schedutil, so Ecluse never writes that string.
  EXPECT_EQ(after[cpufreq_file(2, "scaling_setspeed")], "2400000");
  after[cpufreq_file(2, "scaling_setspeed")] = before.at(cpufreq_file(2, "scaling_setspeed"));
  EXPECT_EQ(after, before);
  EXPECT_TRUE(lines.empty());
  EXPECT_EQ(FrequencyRestorer::instance().size(), 0u);
}

TEST(EnergyFrequency, IntelPstateClampsMaxAndRestoresInSafeOrder) {
  test::FakeTree tree;
  pstate_tree(tree);
  const auto before = snapshot(tree, 2);
  std::vector<std::string> writes;
  auto hook = [&](const char* path, int flags) {
    if ((flags & O_ACCMODE) == O_WRONLY)
      writes.push_back(std::string(path).substr(tree.root().size()));
    return ::open(path, flags);
  };
  auto controller = make_frequency_controller(SysfsFiles(tree.root(), hook), 0, collect);
  EXPECT_EQ(controller->describe(), "cpufreq scaling_max_freq clamp (intel_pstate)");
  controller->apply(FrequencyTarget::parse("1.5GHz"), {0, 1});
  EXPECT_EQ(value(tree, 0, "scaling_max_freq"), "1500000");
  EXPECT_EQ(value(tree, 0, "scaling_min_freq"), "1500000");  // was 2 GHz, above the cap
  EXPECT_EQ(value(tree, 0, "scaling_governor"), "powersave");
  // Lowering below the minimum: min first, so that min <= max after every write.
  EXPECT_EQ(writes, (std::vector<std::string>{
                        cpufreq_file(0, "scaling_min_freq"), cpufreq_file(0, "scaling_max_freq"),
                        cpufreq_file(1, "scaling_min_freq"), cpufreq_file(1, "scaling_max_freq")}));
  writes.clear();
  controller->restore();
  // Raising back: max first, newest first over the CPUs.
  EXPECT_EQ(writes, (std::vector<std::string>{
                        cpufreq_file(1, "scaling_max_freq"), cpufreq_file(1, "scaling_min_freq"),
                        cpufreq_file(0, "scaling_max_freq"), cpufreq_file(0, "scaling_min_freq")}));
  EXPECT_EQ(snapshot(tree, 2), before);
}

TEST(EnergyFrequency, RestoredAfterSigterm) {
  test::FakeTree tree;
  acpi_tree(tree);
  const auto before = snapshot(tree, 4);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      auto controller = make_frequency_controller(SysfsFiles(tree.root()), 0, collect);
      controller->apply(FrequencyTarget::parse("1.8GHz"), {1, 2, 3});
      tree.write("/applied", value(tree, 1, "scaling_governor"));
      raise(SIGTERM);
    } catch (...) {
      _exit(2);
    }
    _exit(3);  // SIGTERM did not end the process
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGTERM);           // re-raised with the default action
  EXPECT_EQ(tree.read("/applied"), "userspace");  // the child did change the governor
  auto after = snapshot(tree, 4);
  EXPECT_EQ(value(tree, 1, "scaling_governor"), "schedutil");
  EXPECT_EQ(value(tree, 3, "scaling_setspeed"), "2400000");
  for (int n : {1, 2}) {  // see the userspace test: the kernel regenerates "<unsupported>"
    EXPECT_EQ(after[cpufreq_file(n, "scaling_setspeed")], "1800000");
    after[cpufreq_file(n, "scaling_setspeed")] = before.at(cpufreq_file(n, "scaling_setspeed"));
  }
  EXPECT_EQ(after, before);
}

void program_handler(int) {
  _exit(7);  // the program's own SIGTERM handler: ends with its own status
}

// Runs `body` in a forked child that then exits with `status`: its wait status (an exception
// in the body exits with 2).
template <class Body>
int status_of_child(Body body, int status) {
  const pid_t child = fork();
  if (child == 0) {
    try {
      body();
    } catch (...) {
      _exit(2);
    }
    _exit(status);
  }
  int waited = 0;
  EXPECT_EQ(waitpid(child, &waited, 0), child);
  return waited;
}

// A program's own SIGTERM handler still runs, after the restore (it was replaced, and the
// process killed by the default action).
TEST(EnergyFrequency, TheProgramsSignalHandlerRunsAfterTheRestore) {
  test::FakeTree tree;
  acpi_tree(tree);
  const auto before = snapshot(tree, 4);
  const int status = status_of_child(
      [&] {
        std::signal(SIGTERM, program_handler);
        auto controller = make_frequency_controller(SysfsFiles(tree.root()), 0, collect);
        controller->apply(FrequencyTarget::parse("1.8GHz"), {1});
        raise(SIGTERM);
      },
      3);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 7);
  auto after = snapshot(tree, 4);
  EXPECT_EQ(after[cpufreq_file(1, "scaling_governor")], "schedutil");
  after[cpufreq_file(1, "scaling_setspeed")] = before.at(cpufreq_file(1, "scaling_setspeed"));
  EXPECT_EQ(after, before);
}

// An ignored SIGINT ends nothing: the run goes on, lowered (it was killed before).
TEST(EnergyFrequency, AnIgnoredSignalStaysIgnored) {
  test::FakeTree tree;
  acpi_tree(tree);
  const int status = status_of_child(
      [&] {
        std::signal(SIGINT, SIG_IGN);
        auto controller = make_frequency_controller(SysfsFiles(tree.root()), 0, collect);
        controller->apply(FrequencyTarget::parse("1.8GHz"), {1});
        raise(SIGINT);
        tree.write("/after", value(tree, 1, "scaling_setspeed"));
        controller->restore();
      },
      5);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 5);
  EXPECT_EQ(tree.read("/after"), "1800000");  // still lowered after the ignored signal
  EXPECT_EQ(value(tree, 1, "scaling_governor"), "schedutil");
}

// abort() (a failed assertion) restores too, then ends the process as it would have.
TEST(EnergyFrequency, RestoredOnAbort) {
  test::FakeTree tree;
  acpi_tree(tree);
  const int status = status_of_child(
      [&] {
        auto controller = make_frequency_controller(SysfsFiles(tree.root()), 0, collect);
        controller->apply(FrequencyTarget::parse("1.8GHz"), {1});
        std::abort();
      },
      3);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGABRT);
  EXPECT_EQ(value(tree, 1, "scaling_governor"), "schedutil");
}

// A maximum already below the target (a site's cap) is never raised by a lowering.
TEST(EnergyFrequency, AClampNeverRaisesACap) {
  test::FakeTree tree;
  pstate_tree(tree);
  cpu(tree, 1, {{"scaling_max_freq", "1200000"}, {"scaling_min_freq", "800000"}});
  auto controller = make_frequency_controller(SysfsFiles(tree.root()), 0, collect);
  controller->apply(FrequencyTarget::parse("60%"), {1});  // 2.4 GHz, above the 1.2 GHz cap
  EXPECT_EQ(value(tree, 1, "scaling_max_freq"), "1200000");
  controller->restore();
  EXPECT_EQ(value(tree, 1, "scaling_max_freq"), "1200000");
}

// A lowering that came too soon after the last one (within 100 ms) is applied at a later
// switch to the same idle phase (a server's loop switches to Idle every 100 ms): before, it
// was dropped and a dedicated core idle for seconds stayed at full speed.
TEST(EnergyFrequency, ALoweringPostponedByTheIntervalIsAppliedLater) {
  test::FakeTree tree;
  acpi_tree(tree);
  // On cpu 0 throughout: the governor controls the cpu it runs on.
  cpu_set_t all, zero;
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  CPU_ZERO(&zero);
  CPU_SET(0, &zero);
  ASSERT_EQ(sched_setaffinity(0, sizeof zero, &zero), 0);
  const int cpu = 0;
  EnergyConfig config;
  config.frequency.push_back({FrequencyPolicy::parse("dedicated-core", "idle", "1.8GHz"), {}});
  Log log(LogConfig{}, 0);
  FrequencyGovernor governor(config, Role::DedicatedCore, log, tree.root(), MPI_COMM_WORLD);
  Accounting accounting;
  accounting.on_switch(
      [&](Phase from, Phase to) { governor.on_phase(from, to, accounting.background_work()); });
  accounting.switch_to(Phase::Idle);
  EXPECT_EQ(value(tree, cpu, "scaling_governor"), "userspace");
  EXPECT_EQ(value(tree, cpu, "scaling_setspeed"), "1800000");
  accounting.switch_to(Phase::Gather);  // a message: raised
  EXPECT_EQ(value(tree, cpu, "scaling_governor"), "schedutil");
  accounting.switch_to(Phase::Idle);  // too soon after the lowering: postponed
  EXPECT_EQ(value(tree, cpu, "scaling_governor"), "schedutil");
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
  accounting.switch_to(Phase::Idle);  // the loop's next idle slice
  EXPECT_EQ(value(tree, cpu, "scaling_governor"), "userspace");
  accounting.switch_to(Phase::Gather);
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
  accounting.set_background_work(true);  // the store thread writes: not idle
  accounting.switch_to(Phase::Idle);
  EXPECT_EQ(value(tree, cpu, "scaling_governor"), "schedutil");
  accounting.set_background_work(false);
  accounting.switch_to(Phase::Idle);
  EXPECT_EQ(value(tree, cpu, "scaling_governor"), "userspace");
  governor.finish();
  EXPECT_EQ(value(tree, cpu, "scaling_governor"), "schedutil");
  sched_setaffinity(0, sizeof all, &all);
}

// A fault the program recovered from ran the restoring handler: the governor knows the CPU is
// back at its own frequency and lowers it again at the next idle phase (it took it as lowered).
TEST(EnergyFrequency, AfterARestoreBySignalTheNextIdlePhaseLowersAgain) {
  test::FakeTree tree;
  acpi_tree(tree);
  cpu_set_t all, zero;
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  CPU_ZERO(&zero);
  CPU_SET(0, &zero);
  ASSERT_EQ(sched_setaffinity(0, sizeof zero, &zero), 0);
  EnergyConfig config;
  config.frequency.push_back({FrequencyPolicy::parse("dedicated-core", "idle", "1.8GHz"), {}});
  Log log(LogConfig{}, 0);
  FrequencyGovernor governor(config, Role::DedicatedCore, log, tree.root(), MPI_COMM_WORLD);
  Accounting accounting;
  accounting.on_switch([&](Phase from, Phase to) { governor.on_phase(from, to); });
  accounting.switch_to(Phase::Idle);
  EXPECT_EQ(value(tree, 0, "scaling_governor"), "userspace");
  FrequencyRestorer::instance().restore_all();  // what the handler does before passing on
  EXPECT_EQ(value(tree, 0, "scaling_governor"), "schedutil");
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
  accounting.switch_to(Phase::Idle);  // the loop's next idle slice
  EXPECT_EQ(value(tree, 0, "scaling_governor"), "userspace");
  governor.finish();
  EXPECT_EQ(value(tree, 0, "scaling_governor"), "schedutil");
  sched_setaffinity(0, sizeof all, &all);
}

// Running as root, permissions do not stop writes: the open hook refuses like the kernel does
// for an ordinary user, after cpu 2 was already changed.
TEST(EnergyFrequency, MissingPermissionDegradesToNullWithOneLine) {
  test::FakeTree tree;
  acpi_tree(tree);
  const auto before = snapshot(tree, 4);
  const std::string refused = tree.path(cpufreq_file(3, "scaling_setspeed"));
  auto hook = [&](const char* path, int flags) {
    if (path == refused && (flags & O_ACCMODE) == O_WRONLY) return errno = EACCES, -1;
    return ::open(path, flags);
  };
  lines.clear();
  auto controller = make_frequency_controller(SysfsFiles(tree.root(), hook), 0, collect);
  controller->apply(FrequencyTarget::parse("50%"), {2, 3});
  const std::string message =
      "frequency control not available: cannot open " + refused +
      ": Permission denied; run as root or through a privileged helper (Slurm --cpu-freq, "
      "likwid-setFreq, GEOPM service), or remove the frequency policy; continuing without "
      "frequency control";
  EXPECT_EQ(lines, std::vector<std::string>{message});
  EXPECT_TRUE(controller->degraded());
  EXPECT_EQ(controller->describe(), "null (" + message + ")");
  EXPECT_EQ(controller->actions().back(), "would set cpus 2,3 to 50% of cpuinfo_max_freq");
  EXPECT_EQ(value(tree, 2, "scaling_governor"), "schedutil");  // cpu 2 put back at once
  controller->apply(FrequencyTarget::parse("1.2GHz"), {2});
  EXPECT_EQ(lines.size(), 1u);  // one line per run, not per phase
  EXPECT_EQ(controller->actions().back(), "would set cpus 2 to 1200000 kHz");
  controller->restore();
  auto after = snapshot(tree, 4);
  after[cpufreq_file(2, "scaling_setspeed")] = before.at(cpufreq_file(2, "scaling_setspeed"));
  EXPECT_EQ(after, before);
}

TEST(EnergyFrequency, NoCpufreqIsNullFromTheStart) {
  test::FakeTree tree;
  lines.clear();
  auto controller = make_frequency_controller(SysfsFiles(tree.root()), 0, collect);
  EXPECT_TRUE(controller->degraded());
  EXPECT_EQ(lines, std::vector<std::string>{
                       "frequency control not available: cannot open " +
                       tree.path(cpufreq_file(0, "scaling_driver")) +
                       ": No such file or directory; this machine offers no such cpufreq setting "
                       "(no cpufreq driver, or a driver without it); remove the frequency policy; "
                       "continuing without frequency control"});
  controller->apply(FrequencyTarget::parse("1GHz"), {0});
  EXPECT_EQ(controller->actions().back(), "would set cpus 0 to 1000000 kHz");
}

}  // namespace
}  // namespace ecluse

namespace ecluse {
namespace {

CpuClaim claim(int rank, Role role, bool lowers, std::vector<int> allowed,
               std::vector<int> policy = {}) {
  CpuClaim c;
  c.rank = rank;
  c.role = role;
  c.lowers = lowers;
  c.cpu = allowed.front();
  c.allowed = std::move(allowed);
  c.policy = std::move(policy);
  return c;
}

}  // namespace

TEST(EnergyFrequencyPolicySharing, CpuListsAsTheKernelWritesThem) {
  EXPECT_EQ(parse_cpu_list("0-3,8"), (std::vector<int>{0, 1, 2, 3, 8}));
  EXPECT_EQ(parse_cpu_list("5"), (std::vector<int>{5}));
  EXPECT_EQ(parse_cpu_list("8,0-1,1"), (std::vector<int>{0, 1, 8}));
  EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(format_cpu_list({4}), "4");
  for (const char* bad : {"", "3-1", "a", "1,,2", "-1", "99999999"}) {
    try {
      (void)parse_cpu_list(bad);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), std::string("not a CPU list: '") + bad + "'");
    }
  }
}

// One policy per CPU and every rank bound to its own CPU: the dedicated core is lowered.
TEST(EnergyFrequencyPolicySharing, ARankBoundToAPolicyOfItsOwnIsLowered) {
  const std::vector<CpuClaim> host = {claim(0, Role::Client, false, {0}),
                                      claim(1, Role::DedicatedCore, true, {1}, {1})};
  EXPECT_FALSE(policy_conflict(host, 1));
  EXPECT_FALSE(policy_conflict(host, 0));  // it lowers nothing
}

// A policy per core pair (related_cpus 0-1) with the simulation on CPU 0: not lowered.
TEST(EnergyFrequencyPolicySharing, APolicySharedWithASimulationRankIsNotLowered) {
  const std::vector<CpuClaim> host = {claim(0, Role::Client, false, {0}),
                                      claim(1, Role::DedicatedCore, true, {1}, {0, 1})};
  const auto conflict = policy_conflict(host, 1);
  ASSERT_TRUE(conflict);
  EXPECT_EQ(*conflict,
            "the dedicated-core frequency policy is not applied on rank 1: the cpufreq policy of "
            "its CPU 1 drives CPUs 0-1 (related_cpus), where other ranks of this job may run too "
            "(rank 0 (simulation) on CPU 0); lowering it would slow them, and ranks sharing one "
            "policy can leave it lowered after the run; bind every rank to one CPU (mpiexec "
            "--bind-to core, srun --cpu-bind=cores) so that each lowered rank's policy is its "
            "own, or remove the <frequency> policy");
}

// Two dedicated cores of one policy would save and restore it in turn: neither lowers.
TEST(EnergyFrequencyPolicySharing, TwoLoweringRanksOfOnePolicyBothRefrain) {
  const std::vector<CpuClaim> host = {claim(0, Role::DedicatedCore, true, {2}, {2, 3}),
                                      claim(1, Role::DedicatedCore, true, {3}, {2, 3})};
  EXPECT_TRUE(policy_conflict(host, 0));
  EXPECT_TRUE(policy_conflict(host, 1));
}

// An unbound simulation rank may be scheduled on the lowered CPU; five ranks: four named.
TEST(EnergyFrequencyPolicySharing, UnboundRanksAreNamedWithWhereTheyMayRun) {
  std::vector<CpuClaim> host;
  for (int r = 0; r < 5; ++r) host.push_back(claim(r, Role::Client, false, {0, 1, 2, 3, 4, 5}));
  host.push_back(claim(5, Role::DedicatedCore, true, {5}, {5}));
  const auto conflict = policy_conflict(host, 5);
  ASSERT_TRUE(conflict);
  EXPECT_NE(conflict->find("(rank 0 (simulation), not bound to one CPU (it may run on CPUs "
                           "0-5); rank 1"),
            std::string::npos)
      << *conflict;
  EXPECT_NE(conflict->find("; and 1 more); lowering"), std::string::npos) << *conflict;
}

// Without related_cpus (no cpufreq) nothing is known: the controller reports that itself.
TEST(EnergyFrequencyPolicySharing, AnUnknownPolicyIsNoConflict) {
  const std::vector<CpuClaim> host = {claim(0, Role::Client, false, {0, 1}),
                                      claim(1, Role::DedicatedCore, true, {0, 1})};
  EXPECT_FALSE(policy_conflict(host, 1));
}

// The claim read from a fake tree: the CPU's related_cpus, the rank's own affinity.
TEST(EnergyFrequencyPolicySharing, AClaimReadsRelatedCpusOfTheCpuItRunsOn) {
  test::FakeTree tree;
  cpu_set_t all, one;
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  tree.write(cpufreq_file(0, "related_cpus"), "0-1\n");
  const CpuClaim c = claim_of_this_rank(SysfsFiles(tree.root()), 7, Role::DedicatedNode, true);
  const CpuClaim unread = claim_of_this_rank(SysfsFiles(tree.root()), 7, Role::Client, false);
  sched_setaffinity(0, sizeof all, &all);
  EXPECT_EQ(c.rank, 7);
  EXPECT_EQ(c.cpu, 0);
  EXPECT_EQ(c.allowed, std::vector<int>{0});
  EXPECT_EQ(c.policy, (std::vector<int>{0, 1}));
  EXPECT_TRUE(unread.policy.empty());  // a rank that lowers nothing reads nothing
  const auto host = host_claims(MPI_COMM_WORLD, c);
  ASSERT_EQ(host.size(), 1u);
  EXPECT_EQ(host[0].policy, c.policy);
  EXPECT_EQ(host[0].role, Role::DedicatedNode);
  EXPECT_TRUE(host[0].lowers);
}

// A rank that may run on CPUs 0 and 1 lowers whichever it is on at each low phase: both
// policies count, whichever CPU it was on at initialize.
TEST(EnergyFrequencyPolicySharing, AnUnboundRankClaimsThePoliciesOfEveryCpuItMayRunOn) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs 2 CPUs";
  test::FakeTree tree;
  tree.write(cpufreq_file(0, "related_cpus"), "0\n");
  tree.write(cpufreq_file(1, "related_cpus"), "1\n");
  cpu_set_t all, two;
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  CPU_ZERO(&two);
  CPU_SET(0, &two);
  CPU_SET(1, &two);
  ASSERT_EQ(sched_setaffinity(0, sizeof two, &two), 0);
  const CpuClaim c = claim_of_this_rank(SysfsFiles(tree.root()), 1, Role::DedicatedCore, true);
  sched_setaffinity(0, sizeof all, &all);
  EXPECT_EQ(c.allowed, (std::vector<int>{0, 1}));
  EXPECT_EQ(c.policy, (std::vector<int>{0, 1}));
  const std::vector<CpuClaim> host = {claim(0, Role::Client, false, {0}), c};
  const auto conflict = policy_conflict(host, 1);
  ASSERT_TRUE(conflict);
  EXPECT_NE(conflict->find("the cpufreq policies of the CPUs it may run on (0-1) drive CPUs 0-1 "
                           "(related_cpus), where other ranks of this job may run too (rank 0 "
                           "(simulation) on CPU 0)"),
            std::string::npos)
      << *conflict;
}

}  // namespace ecluse

namespace ecluse {
namespace {

// A real fault, as a crashing simulation's: a store to a read-only page (a null pointer would
// be caught by UBSan before it faults).
void readonly_write() {
  void* page = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) _exit(9);
  *static_cast<volatile int*>(page) = 1;
}

sigjmp_buf g_recovery;
void recovering_handler(int) {
  siglongjmp(g_recovery, 1);  // a library that catches the fault on purpose and goes on
}

}  // namespace

// A crash (SIGSEGV) restores too, then ends the process by the fault. Under a sanitizer, whose
// handler was there first, the child ends by that handler's exit status instead.
TEST(EnergyFrequency, RestoredOnACrash) {
  test::FakeTree tree;
  acpi_tree(tree);
  const int status = status_of_child(
      [&] {
        auto controller = make_frequency_controller(SysfsFiles(tree.root()), 0, collect);
        controller->apply(FrequencyTarget::parse("1.8GHz"), {1});
        tree.write("/applied", value(tree, 1, "scaling_governor"));
        readonly_write();
      },
      3);
  EXPECT_TRUE(WIFSIGNALED(status) ? WTERMSIG(status) == SIGSEGV
                                  : WIFEXITED(status) && WEXITSTATUS(status) != 3)
      << status;
  EXPECT_EQ(tree.read("/applied"), "userspace");
  EXPECT_EQ(value(tree, 1, "scaling_governor"), "schedutil");
}

// A fault the program catches and recovers from still reaches its handler (after the restore),
// and the program goes on; an ignored SIGSEGV is no way out of a real fault (the kernel ends
// the process), so it restores too.
TEST(EnergyFrequency, AProgramThatRecoversFromAFaultGoesOn) {
  test::FakeTree tree;
  acpi_tree(tree);
  const int status = status_of_child(
      [&] {
        struct sigaction action {};
        action.sa_handler = recovering_handler;
        sigemptyset(&action.sa_mask);
        sigaction(SIGSEGV, &action, nullptr);
        auto controller = make_frequency_controller(SysfsFiles(tree.root()), 0, collect);
        controller->apply(FrequencyTarget::parse("1.8GHz"), {1});
        if (sigsetjmp(g_recovery, 1) == 0) readonly_write();
        tree.write("/recovered", value(tree, 1, "scaling_governor"));
      },
      6);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 6);
  EXPECT_EQ(tree.read("/recovered"), "schedutil");  // restored before the program's handler
  const int ignored = status_of_child(
      [&] {
        std::signal(SIGSEGV, SIG_IGN);
        auto controller = make_frequency_controller(SysfsFiles(tree.root()), 0, collect);
        controller->apply(FrequencyTarget::parse("1.8GHz"), {1});
        readonly_write();
      },
      3);
  EXPECT_TRUE(WIFSIGNALED(ignored) ? WTERMSIG(ignored) == SIGSEGV
                                   : WIFEXITED(ignored) && WEXITSTATUS(ignored) != 3)
      << ignored;
  EXPECT_EQ(value(tree, 1, "scaling_governor"), "schedutil");
  // raise(SIGBUS) is no fault: ignored, it ends nothing and restores nothing.
  const int raised = status_of_child(
      [&] {
        std::signal(SIGBUS, SIG_IGN);
        auto controller = make_frequency_controller(SysfsFiles(tree.root()), 0, collect);
        controller->apply(FrequencyTarget::parse("1.8GHz"), {1});
        raise(SIGBUS);
        tree.write("/after-bus", value(tree, 1, "scaling_governor"));
        controller->restore();
      },
      5);
  ASSERT_TRUE(WIFEXITED(raised)) << "killed by signal " << WTERMSIG(raised);
  EXPECT_EQ(WEXITSTATUS(raised), 5);
  EXPECT_EQ(tree.read("/after-bus"), "userspace");
}

}  // namespace ecluse
