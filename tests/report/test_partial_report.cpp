// The survivors' partial report (report/PartialReport): failures of one job merged line by line,
// another run's file replaced, the list bounded.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "TestSupport.hpp"
#include "report/PartialReport.hpp"

namespace {

using ecluse::FailureWitness;
using ecluse::RunFailure;

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

FailureWitness witness(int rank, const std::string& job = "job-1") {
  return {"heat", "heat.xml", "dc", job, rank, rank == 1 ? "dedicated-core" : "simulation"};
}

TEST(PartialReport, SurvivorsOfOneJobAddTheirFailuresToOneFile) {
  const std::string path = ecluse::test::fresh_dir("partial") + "/heat-report.json";
  ASSERT_TRUE(ecluse::add_to_partial_report(
      path, witness(1),
      {"client process 42 of this node died without calling stop; the dedicated core stops; "
       "iterations 3 to 5 were received in part and are not stored.",
       "simulation", -1, 42, 3, 5}));
  ASSERT_TRUE(ecluse::add_to_partial_report(
      path, witness(2), {"timeout (ECLUSE_TIMEOUT=3 s) waiting in finalize", "", -1, -1, -1, -1}));
  const std::string text = read(path);
  EXPECT_EQ(text.substr(0, text.find("  \"failures\"")),
            "{\n  \"schema\": \"ecluse-report/2\",\n  \"simulation\": \"heat\",\n  \"config\": "
            "\"heat.xml\",\n  \"approach\": \"dc\",\n  \"job\": \"job-1\",\n  \"complete\": "
            "false,\n  \"failures_not_listed\": 0,\n");
  EXPECT_NE(text.find("    {\"seen_by\":{\"world_rank\":1,\"role\":\"dedicated-core\",\"pid\":"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"lost_process\":{\"role\":\"simulation\",\"world_rank\":null,\"pid\":42},"
                      "\"lost_iterations\":{\"count\":3,\"first\":3,\"last\":5}},\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"cause\":\"timeout (ECLUSE_TIMEOUT=3 s) waiting in finalize\","
                      "\"lost_process\":null,\"lost_iterations\":null}\n  ]\n}\n"),
            std::string::npos)
      << text;
}

TEST(PartialReport, AnotherRunsFileIsReplacedAndTheListIsBounded) {
  const std::string path = ecluse::test::fresh_dir("partial_bounded") + "/heat-report.json";
  std::ofstream(path) << "{\"schema\": \"ecluse-report/2\", \"complete\": true}\n";
  ASSERT_TRUE(ecluse::add_to_partial_report(path, witness(0, "old"), {"old", "", -1, -1, -1, -1}));
  for (int i = 0; i < ecluse::kMostListedFailures + 3; ++i) {
    ASSERT_TRUE(ecluse::add_to_partial_report(path, witness(i), {"new", "", -1, -1, -1, -1}));
  }
  const std::string text = read(path);
  EXPECT_EQ(text.find("\"old\""), std::string::npos) << text;
  EXPECT_NE(text.find("  \"failures_not_listed\": 3,\n"), std::string::npos) << text;
  std::size_t listed = 0;
  for (auto at = text.find("\"cause\":\"new\""); at != std::string::npos;
       at = text.find("\"cause\":\"new\"", at + 1)) {
    ++listed;
  }
  EXPECT_EQ(listed, static_cast<std::size_t>(ecluse::kMostListedFailures));
}

}  // namespace
