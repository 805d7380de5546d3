// Iteration plugins (ecluse/plugin.h) under TP, DC and DN: every block of every iteration seen
// once with its shape, position and values; a failing action logged, its iteration stored;
// libraries, symbols and versions checked at initialize.
#include <gtest/gtest.h>
#include <mpi.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "PluginTestSupport.hpp"

namespace {

using namespace ecluse::test;
using namespace ecluse::test::plugins;

void expect_plugin_sees_every_block(const std::string& name, const std::string& architecture,
                                    int writers) {
  if (world_size() != 4) GTEST_SKIP() << "runs with 4 ranks";
  const std::string dir = ecluse::test::fresh_dir(name);
  const int clients = run(config(dir, architecture, count_event()));
  expect_every_block_once(clients, writers);
  expect_files_complete(dir, clients, writers);
}

TEST(Plugins, TimePartitioningClientsSeeTheirBlocks) {
  expect_plugin_sees_every_block("tp", "", 4);
}

TEST(Plugins, DedicatedCoresSeeEveryBlockOfTheirNode) {
  expect_plugin_sees_every_block("dc",
                                 R"(<dedicated cores="1"/><virtual-nodes ranks-per-node="2"/>)", 2);
}

TEST(Plugins, DedicatedNodesSeeEveryBlockOfTheirClients) {
  expect_plugin_sees_every_block("dn",
                                 R"(<dedicated nodes="1"/><virtual-nodes ranks-per-node="2"/>)", 2);
}

constexpr const char* kDc = R"(<dedicated cores="1"/><virtual-nodes ranks-per-node="2"/>)";

TEST(Plugins, FailingActionsAreLoggedAndTheirIterationsStored) {
  if (world_size() != 4) GTEST_SKIP() << "runs with 4 ranks";
  const std::string dir = ecluse::test::fresh_dir("failing");
  const std::string events = count_event() +
                             R"(<event name="fail" action="fail_odd" library=")" ECLUSE_TEST_PLUGIN
                             R"(" kind="iteration"/><event name="boom" action="throw_always" )"
                             R"(library=")" ECLUSE_TEST_PLUGIN R"(" kind="iteration" every="2"/>)";
  const int clients = run(config(dir, kDc, events));
  expect_every_block_once(clients, 2);
  expect_files_complete(dir, clients, 2);
  if (world_rank() != 0) return;
  for (const int server : {1, 3}) {  // the last rank of each virtual node
    const std::string log =
        ecluse::test::read_text(dir + "/log." + std::to_string(server) + ".log");
    for (const char* line :
         {"action 'fail' failed at iteration 1: fail_odd returned 3 (the stores ran before it "
          "and are not affected; the run goes on)",
          "action 'fail' failed at iteration 3: fail_odd returned 3",
          "action 'boom' failed at iteration 0: throw_always threw: plugin exploded at 0",
          "action 'boom' failed at iteration 2: throw_always threw: plugin exploded at 2",
          "action 'fail' failed 2 time(s) out of 4 run(s) on writer ",
          "action 'boom' failed 2 time(s) out of 2 run(s) on writer "}) {
      EXPECT_NE(log.find(line), std::string::npos) << line << " not in\n" << log;
    }
    EXPECT_EQ(log.find("iteration 1: throw_always"), std::string::npos) << "every=2 ran at 1";
  }
}

#ifdef ECLUSE_STATS_PLUGIN
// The example of docs/plugins.md, under TP: each rank prints the min, max and mean of the
// interior of its own blocks (field: two ghost rows left out of each 8x5 block).
TEST(Plugins, ExampleStatsPluginPrintsEachVariable) {
  if (world_size() != 4) GTEST_SKIP() << "runs with 4 ranks";
  const std::string dir = fresh_dir("stats");
  const std::string out = dir + "/stats." + std::to_string(world_rank()) + ".txt";
  std::fflush(stdout);
  const int saved = dup(1);
  const int file = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(file, 1);
  run(config(dir, "",
             R"(<event name="stats" action="stats_iteration" library=")" ECLUSE_STATS_PLUGIN
             R"(" kind="iteration" every="2"/>)"));
  std::fflush(stdout);
  dup2(saved, 1);
  close(file);
  close(saved);
  const std::string text = read_text(out);
  if (world_rank() == 0) {
    EXPECT_NE(text.find("stats: iteration 0 writer 0 variable field: min 5 max 1034 mean 519.5 "
                        "(60 values)\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("stats: iteration 0 writer 0 variable grp/fort: min 0 max 67 mean 33.5 "
                        "(36 values)\n"),
              std::string::npos)
        << text;
  }
  EXPECT_EQ(text.find("iteration 1 "), std::string::npos) << "every=\"2\" ran at iteration 1";
  EXPECT_NE(text.find("stats: iteration 2 writer " + std::to_string(world_rank())),
            std::string::npos)
      << text;
}
#endif

/** Initialize fails on every rank (the servers load, the clients learn it) with `message`. */
void expect_initialize_error(const std::string& event, const std::string& message) {
  if (world_size() != 4) GTEST_SKIP() << "runs with 4 ranks";
  const std::string dir = ecluse::test::fresh_dir("bad");
  EXPECT_EQ(ecluse_initialize_string(config(dir, kDc, event).c_str(), MPI_COMM_WORLD),
            ECLUSE_CONFIG_ERROR);
  EXPECT_EQ(std::string(ecluse_error_message()), message);
}

// A block written without a position reaches a plugin at the origin (it crashed the writer:
// a NULL position).
TEST(Plugins, BlocksWithoutAPositionAreAtTheOrigin) {
  if (world_size() != 4) GTEST_SKIP() << "runs with 4 ranks";
  const std::string dir = ecluse::test::fresh_dir("plug_origin");
  plugin().reset();
  const std::string event =
      R"(<event name="origin" action="at_origin" library=")" ECLUSE_TEST_PLUGIN
      R"(" kind="iteration"/>)";
  expect_ok(ecluse_initialize_string(
      config(dir, R"(<dedicated cores="0" nodes="0"/>)", event).c_str(), MPI_COMM_WORLD));
  int is_client = 0;
  expect_ok(ecluse_start(&is_client));
  for (int b = 0; b < kDomains; ++b) {
    expect_ok(
        ecluse_write_block("field", b, ecluse::test::field_values(0, world_rank(), b).data()));
  }
  expect_ok(ecluse_end_iteration());
  expect_ok(ecluse_stop());
  expect_ok(ecluse_finalize());
  EXPECT_EQ(sum_over_world(plugin().counter("errors")), 0) << plugin().first_error();
  EXPECT_EQ(sum_over_world(plugin().counter("runs")), 4);
}

TEST(Plugins, MissingLibraryFailsAtInitialize) {
  expect_initialize_error(
      R"(<event name="e" action="count_blocks" library="libecluse-no-such-plugin.so" kind="iteration"/>)",
      "<string>:9:10: event 'e': cannot load library 'libecluse-no-such-plugin.so' of action "
      "'count_blocks': libecluse-no-such-plugin.so: cannot open shared object file: No such file "
      "or directory. Fix: give the library's path in library=, or add its directory to "
      "LD_LIBRARY_PATH.");
}

TEST(Plugins, MissingSymbolFailsAtInitialize) {
  expect_initialize_error(
      R"(<event name="e" action="no_such_function" library=")" ECLUSE_TEST_PLUGIN R"("/>)",
      std::string("<string>:9:10: event 'e': function 'no_such_function' not found in library '") +
          ECLUSE_TEST_PLUGIN +
          "'; export it (extern \"C\") or bind one with "
          "ecluse_bind.");
}

TEST(Plugins, OldPluginVersionIsRefusedAtInitialize) {
  expect_initialize_error(
      R"(<event name="e" action="old_action" library=")" ECLUSE_TEST_PLUGIN_OLD
      R"(" kind="iteration"/>)",
      std::string("<string>:9:10: event 'e': '") + ECLUSE_TEST_PLUGIN_OLD +
          "' was built for plugin interface version 0, this Ecluse provides version 1; rebuild "
          "it against this Ecluse's ecluse/plugin.h.");
}

}  // namespace
