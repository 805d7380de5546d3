// Asymmetric dedicated cores (<dedicated cores="2" roles=...>): the storing core writes every
// block of the node, the analysis core runs the plugin on the same blocks in the shared buffer;
// each block is seen once by the plugin and stored once, in either order of the roles.
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>

#include "PluginTestSupport.hpp"

namespace {

using namespace ecluse::test;
using namespace ecluse::test::plugins;

void expect_roles_share_the_blocks(const std::string& name, const std::string& roles) {
  if (world_size() != 4) GTEST_SKIP() << "runs with 4 ranks";
  const std::string dir = fresh_dir(name);
  const std::string architecture =
      R"(<dedicated cores="2" roles=")" + roles + R"("/><virtual-nodes ranks-per-node="4"/>)";
  const int clients = run(config(dir, architecture, count_event()));
  EXPECT_EQ(clients, 2);
  expect_every_block_once(clients, 1);     // one analysis core
  expect_files_complete(dir, clients, 1);  // one storing core: one file per iteration
}

TEST(Asymmetric, StoreThenAnalysis) {
  expect_roles_share_the_blocks("store-analysis", "store analysis");
}

TEST(Asymmetric, AnalysisThenStore) {
  expect_roles_share_the_blocks("analysis-store", "analysis store");
}

// A buffer of about two iterations and a slow analysis: the clients wait for room, and every
// block the plugin reads still holds what was written (it is freed only after the analysis).
TEST(Asymmetric, BlocksAreFreedOnlyAfterTheAnalysis) {
  if (world_size() != 4) GTEST_SKIP() << "runs with 4 ranks";
  const std::string dir = fresh_dir("slow");
  const std::string architecture =
      R"(<dedicated cores="2" roles="store analysis"/><virtual-nodes ranks-per-node="4"/>)"
      R"(<buffer size="4096" policy="block"/>)";
  const std::string slow = R"(<event name="count" action="count_slow" library=")" ECLUSE_TEST_PLUGIN
                           R"(" kind="iteration"/>)";
  const int clients = run(config(dir, architecture, slow));
  expect_every_block_once(clients, 1);
  expect_files_complete(dir, clients, 1);
}

}  // namespace
