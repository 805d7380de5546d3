// Aggregation of ranks' records: sums by role, energy apportioned by CPU time, statistics.
#include <gtest/gtest.h>

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
  records[0].iterations = {{0, 0.5, 0, 100}, {1, 1.5, 0, 100}};
  records[1].iterations = {{0, 0.25, 0, 50}, {1, 0.75, 0, 50}};
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
  EXPECT_DOUBLE_EQ(t.mean_write, 0.75);  // (0.5 + 1.5 + 0.25 + 0.75) / 4
  EXPECT_DOUBLE_EQ(t.max_write, 1.5);
}

TEST(Aggregate, ReportDocument) {
  const auto records = run();
  const auto config = dc_config();
  const auto t = ecluse::aggregate(config, records, 1, 1);
  const std::string text = ecluse::build_report(config, t, records).dump(0);
  EXPECT_NE(text.find("\"schema\":\"ecluse-report/1\""), std::string::npos);
  // Peaks are maxima, counters are sums.
  EXPECT_NE(text.find("\"statistics\":{\"dn.peak_held_bytes\":30,\"dn.sent_bytes\":12}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("{\"iteration\":1,\"bytes\":150,\"client_write_s\":{\"mean\":1.125,"
                      "\"max\":1.5}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"io\":{\"bytes\":300,\"rate_mb_s\":3e-05,"), std::string::npos) << text;
  EXPECT_NE(text.find("\"average_power_w\":100,"), std::string::npos) << text;
}

TEST(Aggregate, SummaryNamesEverything) {
  const auto records = run();
  const auto t = ecluse::aggregate(dc_config(), records, 1, 1);
  const std::string s = ecluse::report_summary(t, records, "r.json");
  EXPECT_EQ(s,
            "ecluse report (r.json):\n"
            "  approach dc, 3 ranks on 1 node(s), 1 host(s): simulation 2, dedicated-core 1\n"
            "  completion 10.000 s; client write per iteration mean 750.000 ms, max 1500.000 "
            "ms\n"
            "  CPU usage: simulation 20.0%, dedicated-core 0.0%\n"
            "  energy 1000.0 J (model, modelled, cal-1), average power 100.0 W; I/O 0.000 MB/s, "
            "0.00000 MB/s/W\n");
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
