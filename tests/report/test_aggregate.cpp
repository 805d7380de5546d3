// Aggregation of ranks' records: sums by role, energy apportioned by CPU time, statistics.
#include <gtest/gtest.h>

#include <filesystem>

#include "config/ConfigLoader.hpp"
#include "report/RunReport.hpp"

namespace {

using ecluse::RankRecord;

RankRecord rank(int r, int role, double wall, double cpu, double compute_cpu, double write_cpu) {
  RankRecord rec;
  rec.totals.rank = r;
  rec.totals.role = static_cast<ecluse::Role>(role);
  rec.totals.wall = wall;
  rec.totals.cpu = cpu;
  rec.totals.phases[static_cast<int>(ecluse::Phase::Compute)] = {wall * 0.8, compute_cpu};
  rec.totals.phases[static_cast<int>(ecluse::Phase::Write)] = {wall * 0.2, write_cpu};
  return rec;
}

struct Sample {
  int iteration;
  double seconds, amount;  // bytes of a client, blocks of a store
};

void add_ended(RankRecord& rec, const std::vector<Sample>& samples) {
  for (const Sample& x : samples) {
    ecluse::IterationRecord r;
    r.iteration = x.iteration;
    r.ended = true;
    r.write_seconds = x.seconds;
    r.bytes = x.amount;
    rec.series.add(r);
  }
}

void add_stored(RankRecord& rec, const std::vector<Sample>& samples) {
  for (const Sample& x : samples) {
    ecluse::IterationRecord r;
    r.iteration = x.iteration;
    r.stored = true;
    r.store_seconds = x.seconds;
    r.stored_blocks = x.amount;
    rec.series.add(r);
  }
}

std::vector<RankRecord> run() {
  // One host: clients 0 and 1 used 3 s and 1 s of CPU, the dedicated core 0 s... almost.
  std::vector<RankRecord> records{rank(0, 0, 10, 3, 2.25, 0.75), rank(1, 0, 10, 1, 1, 0),
                                  rank(2, 1, 10, 0, 0, 0)};
  records[0].energy = ecluse::HostEnergyFigure{"h", "model", "modelled", "cal-1", "", 1000, 10};
  records[0].statistics = {{ecluse::Statistic::DnPeakHeldBytes, 10},
                           {ecluse::Statistic::DnSentBytes, 5}};
  records[1].statistics = {{ecluse::Statistic::DnPeakHeldBytes, 30},
                           {ecluse::Statistic::DnSentBytes, 7}};
  records[0].totals.bytes = 200;
  records[1].totals.bytes = 100;
  // Clients write in iterations 0 and 1; iteration 2 hands nothing over.
  add_ended(records[0], {{0, 0.5, 100}, {1, 1.5, 100}, {2, 0.001, 0}});
  add_ended(records[1], {{0, 0.25, 50}, {1, 0.75, 50}, {2, 0.001, 0}});
  add_stored(records[2], {{0, 0.25, 2}, {1, 0.5, 2}, {2, 0.125, 0}});
  return records;
}

ecluse::Config dc_config() {
  ecluse::Config c;
  c.simulation = "sim";
  c.architecture.dedicated_cores = 1;
  return c;
}

TEST(Aggregate, RolesAndEnergyApportionedByCpuTime) {
  const auto t = ecluse::aggregate(dc_config(), run(), 1, 1);
  EXPECT_EQ(ecluse::name_of(t.approach), "dc");
  EXPECT_EQ(t.roles[0].ranks, 2);
  EXPECT_EQ(t.roles[1].ranks, 1);
  EXPECT_DOUBLE_EQ(t.roles[0].cpu, 4.0);
  // 1000 J over 4 s of CPU on the host: the clients take all of it, 750 + 250.
  EXPECT_DOUBLE_EQ(t.roles[0].joules, 1000.0);
  EXPECT_DOUBLE_EQ(t.roles[1].joules, 0.0);
  // Client 0: 750 J split 2.25:0.75 between compute and write; client 1: all 250 J compute.
  EXPECT_DOUBLE_EQ(t.roles[0].phase_joules[static_cast<int>(ecluse::Phase::Compute)], 812.5);
  EXPECT_DOUBLE_EQ(t.roles[0].phase_joules[static_cast<int>(ecluse::Phase::Write)], 187.5);
  EXPECT_EQ(t.energy.source, "model");
  EXPECT_EQ(t.energy.calibration, "cal-1");
  EXPECT_DOUBLE_EQ(t.completion, 10.0);
  // The write mean counts the iterations that wrote: (0.5 + 1.5 + 0.25 + 0.75) / 4.
  const auto& write = t.series[0].merged.of(ecluse::Series::Write);
  EXPECT_DOUBLE_EQ(write.mean(), 0.75);
  EXPECT_DOUBLE_EQ(write.max(), 1.5);
  EXPECT_DOUBLE_EQ(t.series[0].slowest_mean[0], 1.0);
  EXPECT_EQ(t.storing.merged.of(ecluse::Series::Store).sum(), 0.75);
}

TEST(Aggregate, ReportDocument) {
  const auto records = run();
  const auto config = dc_config();
  const auto t = ecluse::aggregate(config, records, 1, 1);
  const std::string text = ecluse::build_report(config, t, records).dump(0);
  EXPECT_NE(text.find("\"schema\":\"ecluse-report/2\""), std::string::npos);
  // Peaks are maxima, counters are sums.
  EXPECT_NE(text.find("\"statistics\":{\"dn.peak_held_bytes\":30,\"dn.sent_bytes\":12}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"iterations\":{\"count\":3,\"first\":0,\"last\":2,\"outputs\":{"
                      "\"count\":2,\"first\":0,\"last\":1,\"every\":1,\"every_max\":1},"
                      "\"client_write_s\":{\"count\":4,\"sum\":3,\"mean\":0.75,\"stddev\":"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"min\":0.25,\"max\":1.5,\"p50\":"), std::string::npos) << text;
  EXPECT_NE(text.find("\"slowest_rank_mean\":1},\"client_quiet_s\":{\"count\":2,\"sum\":0.002,"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"server_store_s\":{\"count\":2,\"sum\":0.75,\"mean\":0.375,"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"server_store_empty_s\":{\"count\":1,\"sum\":0.125,"), std::string::npos)
      << text;
  EXPECT_NE(text.find("\"store_errors\":0,\"failed_iterations\":{\"count\":0,\"first\":null,"
                      "\"last\":null}}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"trace\":null}"), std::string::npos) << text;
  EXPECT_NE(text.find("\"io\":{\"bytes\":300,\"rate_mb_s\":2.9999999999999997e-05,"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"average_power_w\":100,"), std::string::npos) << text;
}

TEST(Aggregate, SummaryNamesEverything) {
  const auto records = run();
  const auto t = ecluse::aggregate(dc_config(), records, 1, 1);
  const std::string s = ecluse::report_summary(t, records, "r.json");
  EXPECT_EQ(s,
            "ecluse report (r.json):\n"
            "  approach dc, 3 ranks on 1 node(s), 1 host(s): simulation 2, dedicated-core 1\n"
            "  completion 10.000 s; client write per output iteration mean 750.000 ms, max "
            "1500.000 ms (2 of 3 iteration(s) wrote)\n"
            "  CPU usage: simulation 20.0%, dedicated-core 0.0%\n"
            "  energy 1000.0 J (model, modelled, cal-1), average power 100.0 W; I/O 0.000 MB/s, "
            "0.00000 MB/s/W\n");
}

// Three hosts: one measured, one modelled, one whose energy could not be read. The unread one is
// counted apart (it was summed as 0 J and its label made the run "mixed"), the total splits
// into measured and modelled joules, and a calibration that differs is "mixed" (an empty one,
// a measured source's, was taken as unset).
TEST(Aggregate, HostsWithoutEnergyAreLeftOutAndMixedTotalsSplit) {
  auto records = run();
  for (int h = 0; h < 3; ++h) records[static_cast<std::size_t>(h)].totals.host = h;
  records[0].energy = ecluse::HostEnergyFigure{"a", "rapl", "measured", "", "", 400, 10};
  records[1].energy = ecluse::HostEnergyFigure{"b", "model", "modelled", "cal-1", "", 300, 10};
  records[2].energy =
      ecluse::HostEnergyFigure{"c", "none", "none", "", "no energy source could be read", 0, 0};
  const auto t = ecluse::aggregate(dc_config(), records, 3, 3);
  EXPECT_DOUBLE_EQ(t.energy.joules, 700);
  EXPECT_DOUBLE_EQ(t.energy.measured_joules, 400);
  EXPECT_DOUBLE_EQ(t.energy.modelled_joules, 300);
  EXPECT_DOUBLE_EQ(t.energy.watts, 70);
  EXPECT_EQ(t.energy.hosts_without_energy, 1);
  EXPECT_EQ(t.energy.source, "mixed");
  EXPECT_EQ(t.energy.quality, "mixed");
  EXPECT_EQ(t.energy.calibration, "mixed");
  EXPECT_EQ(t.energy.hosts.size(), 3u);
  records.pop_back();  // the dedicated core's host: rapl alone, with an unread host
  records[1].energy = ecluse::HostEnergyFigure{"b", "none", "none", "", "", 0, 0};
  const auto partial = ecluse::aggregate(dc_config(), records, 2, 2);
  EXPECT_EQ(partial.energy.source, "rapl");
  EXPECT_EQ(partial.energy.quality, "measured-partial");
  EXPECT_EQ(partial.energy.calibration, "");
  const std::string s = ecluse::report_summary(partial, records, "r.json");
  EXPECT_NE(s.find("  energy 400.0 J (rapl, measured-partial, 1 host(s) without energy left "
                   "out), average power 40.0 W"),
            std::string::npos)
      << s;
}

// What did not reach the disk comes first in the summary: failed stores, and blocks that
// policy="skip" dropped (a program that ignores return codes still shows its loss here).
TEST(Aggregate, SummarySaysFirstWhatWasNotStored) {
  auto records = run();
  const auto quiet = ecluse::aggregate(dc_config(), records, 1, 1);
  EXPECT_EQ(ecluse::report_summary(quiet, records, "r.json").find("NOT STORED"), std::string::npos);
  ecluse::IterationRecord failed;
  failed.iteration = 4;
  failed.stored = true;
  failed.store_errors = 2;
  records[2].series.add(failed);  // the dedicated core's stores of iteration 4 failed
  records[0].statistics.push_back({ecluse::Statistic::DcSkippedBlocks, 5});
  const auto t = ecluse::aggregate(dc_config(), records, 1, 1);
  const std::string s = ecluse::report_summary(t, records, "r.json");
  EXPECT_EQ(s.rfind("ecluse report (r.json):\n  NOT STORED: 2 store(s) failed in 1 (rank, "
                    "iteration) pair(s), iterations 4 to 4: what they were to store is not on "
                    "disk, all of it or a part (the errors above say which and why)\n  skipped: 5 "
                    "block(s) dropped by policy=\"skip\" when "
                    "the buffer was full: not stored, as configured (raise <buffer size>, or "
                    "policy=\"block\" to keep them)\n  approach dc",
                    0),
            0u)
      << s;
  // The I/O rate counts what was handed over, not what reached the disk.
  EXPECT_NE(s.find(" MB/s/W (handed over by the clients; not all of it stored: see NOT STORED)\n"),
            std::string::npos)
      << s;
  EXPECT_EQ(ecluse::report_summary(quiet, records, "r.json").find("handed over by the clients"),
            std::string::npos);
}

// Every source counts the whole host: CPU time its CPUs spent beyond the job's ranks (another
// job, a compile) is told in the report and the summary, above both thresholds only.
TEST(Aggregate, OtherProcessesLoadOnAHostIsTold) {
  auto records = run();                // the ranks' CPU on the host: 3 + 1 + 0 s
  records[0].energy->busy_cpu_s = 10;  // 6 s of other processes
  const auto config = dc_config();
  const auto t = ecluse::aggregate(config, records, 1, 1);
  EXPECT_EQ(t.energy.hosts_with_other_load, 1);
  EXPECT_DOUBLE_EQ(t.energy.other_cpu_s, 6);
  EXPECT_DOUBLE_EQ(t.energy.hosts.at(0).job_cpu_s, 4);
  EXPECT_NE(ecluse::report_summary(t, records, "r.json")
                .find("0.00000 MB/s/W\n  energy note: other processes kept 1 host(s) busy 6.0 "
                      "CPU-s beyond this job's ranks; the energy figure counts their load too "
                      "(run alone for a figure of this job only)\n"),
            std::string::npos);
  const std::string text = ecluse::build_report(config, t, records).dump(0);
  EXPECT_NE(text.find("\"busy_cpu_s\":10,\"job_cpu_s\":4,\"other_cpu_s\":6,\"other_load\":true"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"hosts_with_other_load\":1,\"other_cpu_s\":6"), std::string::npos) << text;
  for (const double busy : {4.9, -1.0}) {  // 0.9 s, under a quarter of 4.9 s; unknown
    records[0].energy->busy_cpu_s = busy;
    const auto quiet = ecluse::aggregate(config, records, 1, 1);
    EXPECT_EQ(quiet.energy.hosts_with_other_load, 0) << busy;
    EXPECT_EQ(ecluse::report_summary(quiet, records, "r.json").find("energy note"),
              std::string::npos);
  }
}

// Clients that waited 5% of their time or more for room in the buffer (its own counter, not the
// wait phase, which also holds a dedicated node's final drain) are told so, with the count of
// waits and what to change; less than that says nothing (SummaryNamesEverything).
TEST(Aggregate, SummarySaysWhenClientsWaitedForRoom) {
  auto records = run();
  records[0].totals.phases[static_cast<int>(ecluse::Phase::Wait)] = {3, 0};
  records[0].statistics.push_back({ecluse::Statistic::DcBufferWaits, 40});
  records[0].statistics.push_back({ecluse::Statistic::DcBufferWaitSeconds, 1.5});
  records[1].statistics.push_back({ecluse::Statistic::DcBufferWaits, 13});
  records[1].statistics.push_back({ecluse::Statistic::DcBufferWaitSeconds, 0.5});
  const auto t = ecluse::aggregate(dc_config(), records, 1, 1);
  const std::string s = ecluse::report_summary(t, records, "r.json");
  EXPECT_NE(
      s.find("\n  waits: the clients waited for room in the buffer 10.0% of their time "
             "(1.000 s per client, 53 wait(s) in all): the dedicated cores store slower than the "
             "simulation hands data over, or the buffer holds fewer than two of a client's "
             "iterations (ecluse-check --ranks N says how many): raise <buffer size>, add "
             "dedicated cores or write less often\n  CPU usage:"),
      std::string::npos)
      << s;
  records[0].statistics.back().value = 0.4;  // 0.9 s of 20: 4.5%
  records[1].statistics.back().value = 0.5;
  const auto quiet = ecluse::aggregate(dc_config(), records, 1, 1);
  EXPECT_EQ(ecluse::report_summary(quiet, records, "r.json").find("waits:"), std::string::npos);
}

// Clients that waited at finalize (for their servers' backlog, or slower clients) a second and
// 5% of their time are told so; a wait short in either sense says nothing.
TEST(Aggregate, SummarySaysWhenClientsWaitedAtFinalize) {
  auto records = run();  // each client's wall: 10 s
  records[0].totals.finalize_wait = 1.5;
  records[1].totals.finalize_wait = 0.5;
  const auto t = ecluse::aggregate(dc_config(), records, 1, 1);
  const std::string s = ecluse::report_summary(t, records, "r.json");
  EXPECT_NE(s.find("\n  finalize: the clients waited 1.000 s each (10.0% of their time) at "
                   "finalize for the dedicated cores to store what they still held, or for "
                   "slower clients: if the servers, they store slower than the simulation hands "
                   "data over (see their store time per iteration in the report): write less "
                   "often or add dedicated resources\n  CPU usage:"),
            std::string::npos)
      << s;
  for (const auto& [first, second] : {std::pair{0.3, 0.5},      // 0.4 s each: under a second
                                      std::pair{1.0, 0.95}}) {  // 0.975 s each
    records[0].totals.finalize_wait = first;
    records[1].totals.finalize_wait = second;
    const auto quiet = ecluse::aggregate(dc_config(), records, 1, 1);
    EXPECT_EQ(ecluse::report_summary(quiet, records, "r.json").find("finalize:"), std::string::npos)
        << first;
  }
  records[0].totals.wall = records[1].totals.wall = 100;  // 1.25 s each, but 1.25%
  records[0].totals.finalize_wait = 1.5;
  records[1].totals.finalize_wait = 1.0;
  const auto long_run = ecluse::aggregate(dc_config(), records, 1, 1);
  EXPECT_EQ(ecluse::report_summary(long_run, records, "r.json").find("finalize:"),
            std::string::npos);
}

// In-situ work that failed (the writers' hook failures, summed) is counted and said after the
// loss lines; none says nothing.
TEST(Aggregate, SummarySaysHowManyRunsOfInSituWorkFailed) {
  auto records = run();
  const std::string none =
      ecluse::report_summary(ecluse::aggregate(dc_config(), records, 1, 1), records, "r.json");
  EXPECT_EQ(none.find("in situ:"), std::string::npos);
  records[2].statistics.push_back({ecluse::Statistic::InsituFailures, 3});
  const auto t = ecluse::aggregate(dc_config(), records, 1, 1);
  EXPECT_EQ(t.statistics.at(ecluse::Statistic::InsituFailures), 3);
  EXPECT_NE(ecluse::report_summary(t, records, "r.json")
                .find("\n  in situ: 3 run(s) of in-situ work (<pyscript>, plugin actions, signal "
                      "actions) failed: the data was stored, their results are missing for those "
                      "iterations (the log and stderr say which, with the error)\n"),
            std::string::npos);
}

TEST(Aggregate, SummarySaysHowManyWritesWereRefused) {
  auto records = run();
  const std::string none =
      ecluse::report_summary(ecluse::aggregate(dc_config(), records, 1, 1), records, "r.json");
  EXPECT_EQ(none.find("NOT HANDED OVER"), std::string::npos);
  records[0].statistics.push_back({ecluse::Statistic::ClientRefusedWrites, 2});
  records[1].statistics.push_back({ecluse::Statistic::ClientRefusedWrites, 3});
  const auto t = ecluse::aggregate(dc_config(), records, 1, 1);
  EXPECT_EQ(t.statistics.at(ecluse::Statistic::ClientRefusedWrites), 5);
  EXPECT_NE(ecluse::report_summary(t, records, "r.json")
                .find("\n  NOT HANDED OVER: 5 write(s) refused with an error (a variable or "
                      "block the configuration does not declare, a block too large for the room "
                      "a client has, a second write of a block in one iteration, its server "
                      "gone, ...): their data is not stored (the errors above say why)\n"),
            std::string::npos);
}

// A store's frequency is no loss, but a ported Damaris file (whose stores Damaris ran at every
// iteration) should not lose two thirds of its outputs without a word where users read first.
TEST(Aggregate, SummarySaysHowManyWritesNoStoreTook) {
  auto records = run();
  const std::string none =
      ecluse::report_summary(ecluse::aggregate(dc_config(), records, 1, 1), records, "r.json");
  EXPECT_EQ(none.find("not stored, as configured"), std::string::npos);
  records[0].statistics.push_back({ecluse::Statistic::ClientUnwantedWrites, 4});
  records[1].statistics.push_back({ecluse::Statistic::ClientUnwantedWrites, 4});
  const auto t = ecluse::aggregate(dc_config(), records, 1, 1);
  EXPECT_NE(ecluse::report_summary(t, records, "r.json")
                .find("\n  not stored, as configured: 8 write(s) of blocks that no store takes "
                      "at their iteration (a store's frequency, a variable that names no store) "
                      "and nothing else reads: returned OK, nothing copied "
                      "(client.unwanted_writes)\n"),
            std::string::npos);
}

TEST(Aggregate, SummaryEndsWithHowToGetTheLeastCostApproach) {
  EXPECT_EQ(ecluse::least_cost_hint("r.json"),
            "  least cost: run `ecluse advise --from-report r.json` for the model's answer "
            "(given here when launched with `ecluse run -- <command>`)\n");
  EXPECT_EQ(ecluse::least_cost_hint(""),
            "  least cost: not predicted: no report was written for the model to read (see "
            "<report file> or ECLUSE_REPORT)\n");
}

TEST(Aggregate, TracePatternHoldsTheRank) {
  auto config = dc_config();
  unsetenv("ECLUSE_TRACE");
  EXPECT_EQ(ecluse::trace_pattern(config), "");
  config.report.trace = "/tmp/{simulation}-trace-{rank}.csv";
  EXPECT_EQ(ecluse::trace_pattern(config), "/tmp/sim-trace-{rank}.csv");
  setenv("ECLUSE_TRACE", "/tmp/t.csv", 1);
  EXPECT_EQ(ecluse::trace_pattern(config), "/tmp/t.csv.{rank}");
  setenv("ECLUSE_TRACE", "none", 1);
  EXPECT_EQ(ecluse::trace_pattern(config), "");
  unsetenv("ECLUSE_TRACE");
}

TEST(Aggregate, TraceIsReadFromTheReportElement) {
  const auto config = ecluse::parse_config(
      "<string>", R"(<simulation name="sim"><architecture><dedicated cores="0"/></architecture>
      <data><layout name="l" type="double" dimensions="4"/><variable name="v" layout="l"/></data>
      <report trace="t/{simulation}-{rank}.csv"/></simulation>)");
  unsetenv("ECLUSE_TRACE");
  EXPECT_EQ(config.report.trace, "t/{simulation}-{rank}.csv");
  EXPECT_EQ(ecluse::trace_pattern(config),
            (std::filesystem::current_path() / "t/sim-{rank}.csv").string());
}

TEST(Aggregate, ReportPathFollowsEnvironmentAndPlaceholder) {
  auto config = dc_config();
  config.report.file = "out/{simulation}.json";
  unsetenv("ECLUSE_REPORT");
  EXPECT_EQ(ecluse::report_path(config), "out/sim.json");
  setenv("ECLUSE_REPORT", "none", 1);
  EXPECT_EQ(ecluse::report_path(config), "");
  unsetenv("ECLUSE_REPORT");
}

}  // namespace
