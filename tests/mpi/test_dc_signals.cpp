// Events under dedicated cores and dedicated nodes: scope core runs on the caller's server, bcast
// on every server, group once all clients of a node (DC) or of a server (DN) signalled;
// execution local runs on the client itself.
#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "TestSupport.hpp"
#include "ecluse/ecluse.h"

namespace {

int core_calls = 0, bcast_calls = 0, group_calls = 0, local_calls = 0;
int last_group_iteration = -1;
std::set<int> core_sources, local_sources;  // the source each action was given

void on_core(const char*, int32_t source, int32_t, const char*) {
  ++core_calls;
  core_sources.insert(source);
}
void on_bcast(const char*, int32_t, int32_t, const char*) {
  ++bcast_calls;
}
void on_group(const char*, int32_t, int32_t iteration, const char*) {
  ++group_calls;
  last_group_iteration = iteration;
}
void on_local(const char*, int32_t source, int32_t, const char*) {
  ++local_calls;
  local_sources.insert(source);
}

int client_rank() {
  MPI_Comm comm;
  EXPECT_EQ(ecluse_client_comm_get(&comm), ECLUSE_OK);
  int rank = -1;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

void expect_ok(int status) {
  ASSERT_EQ(status, ECLUSE_OK) << ecluse_error_message();
}

std::string config(const std::string& architecture) {
  return "<simulation name=\"sig\"><architecture>" + architecture + R"(</architecture>
  <actions>
    <event name="core" action="on_core" scope="core"/>
    <event name="bcast" action="on_bcast" scope="bcast"/>
    <event name="group" action="on_group" scope="group"/>
    <event name="here" action="on_local" execution="local"/>
  </actions></simulation>)";
}

/** Initializes with `architecture`, binds the four events, starts; returns is_client. */
int start_with_events(const std::string& architecture) {
  core_calls = bcast_calls = group_calls = local_calls = 0;
  core_sources.clear();
  local_sources.clear();
  expect_ok(ecluse_initialize_string(config(architecture).c_str(), MPI_COMM_WORLD));
  expect_ok(ecluse_bind("core", on_core));
  expect_ok(ecluse_bind("bcast", on_bcast));
  expect_ok(ecluse_bind("group", on_group));
  expect_ok(ecluse_bind("here", on_local));
  int is_client = 0;
  expect_ok(ecluse_start(&is_client));
  return is_client;
}

TEST(DnSignals, EachScopeReachesTheRightServer) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int is_client =
      start_with_events(R"(<dedicated nodes="1"/><virtual-nodes ranks-per-node="1"/>)");
  if (is_client) {
    for (int it = 0; it < 3; ++it) {
      expect_ok(ecluse_signal("core"));
      expect_ok(ecluse_signal("group"));
      expect_ok(ecluse_signal("here"));
      expect_ok(ecluse_end_iteration());
    }
    // A local action is given the client's id, as its server is (not the world rank: the
    // server holds world rank 0 here).
    EXPECT_EQ(local_sources, std::set<int>{client_rank()});
    expect_ok(ecluse_stop());
    EXPECT_EQ(local_calls, 3);
  } else {
    std::set<int> clients;
    for (int c = 0; c < size - 1; ++c) clients.insert(c);
    EXPECT_EQ(core_sources, clients);
    EXPECT_EQ(core_calls, 3 * (size - 1));  // one server serves every client
    EXPECT_EQ(group_calls, 3);              // once per iteration, when all its clients signalled
    EXPECT_EQ(last_group_iteration, 2);
    EXPECT_EQ(local_calls, 0);
  }
  expect_ok(ecluse_finalize());
}

// A signal whose function the server cannot find fails at every signal: each is said in the
// log and counted as in-situ work that failed (insitu.failures: the summary's "in situ:" line,
// ecluse run's exit status), the data still stored.
TEST(DnSignals, AnActionThatCannotBeFoundCountsAsAFailedRun) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string xml = R"(<simulation name="sig"><architecture><dedicated nodes="1"/>
    <virtual-nodes ranks-per-node="1"/></architecture><actions>
    <event name="typo" action="on_cor" scope="core"/></actions></simulation>)";
  expect_ok(ecluse_initialize_string(xml.c_str(), MPI_COMM_WORLD));
  int is_client = 0;
  expect_ok(ecluse_start(&is_client));
  double failures = -1;
  if (is_client) {
    for (int it = 0; it < 2; ++it) {
      expect_ok(ecluse_signal("typo"));  // sent: the server runs it
      expect_ok(ecluse_end_iteration());
    }
    expect_ok(ecluse_stop());
    EXPECT_EQ(ecluse_get_statistic("insitu.failures", &failures), ECLUSE_ARGUMENT_ERROR);
  } else {
    expect_ok(ecluse_get_statistic("insitu.failures", &failures));
    EXPECT_EQ(failures, 2.0 * (size - 1)) << "two signals of each client";
  }
  expect_ok(ecluse_finalize());
}

// In a Damaris file the same signals are not failures, as Damaris logs them and goes on: they
// count in insitu.unbound_signals (ecluse run exits 0), and the server's messages name the
// call its program has, damaris_bind.
TEST(DnSignals, InADamarisFileAnActionThatCannotBeFoundIsCountedApart) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string xml =
      R"(<simulation name="sig" xmlns="http://damaris.gforge.inria.fr/damaris/model">
    <architecture><dedicated nodes="1"/><virtual-nodes ranks-per-node="1"/></architecture>
    <actions><event name="typo" action="on_cor" scope="core"/></actions></simulation>)";
  expect_ok(ecluse_initialize_string(xml.c_str(), MPI_COMM_WORLD));
  int is_client = 0;
  testing::internal::CaptureStderr();
  expect_ok(ecluse_start(&is_client));
  double failures = -1;
  double unbound = -1;
  if (is_client) {
    for (int it = 0; it < 2; ++it) {
      expect_ok(ecluse_signal("typo"));
      expect_ok(ecluse_end_iteration());
    }
    expect_ok(ecluse_stop());
    testing::internal::GetCapturedStderr();
  } else {
    const std::string said = testing::internal::GetCapturedStderr();
    EXPECT_NE(said.find("event 'typo': function 'on_cor' not found in the program; export it "
                        "(extern \"C\", linked with -rdynamic) or bind one with damaris_bind."),
              std::string::npos)
        << said;
    EXPECT_EQ(said.find("ecluse_bind"), std::string::npos) << said;
    int server = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &server);
    if (server == size - 1) {  // the first (the only) server says it once, at start
      EXPECT_NE(said.find("Nothing was bound by start: each of its signals will fail on the "
                          "servers (the log says so, and the report counts them in "
                          "insitu.unbound_signals, not as failures, as in Damaris)."),
                std::string::npos)
          << said;
    }
    EXPECT_EQ(ecluse_get_statistic("insitu.failures", &failures), ECLUSE_ARGUMENT_ERROR);
    expect_ok(ecluse_get_statistic("insitu.unbound_signals", &unbound));
    EXPECT_EQ(unbound, 2.0 * (size - 1)) << "two signals of each client";
  }
  expect_ok(ecluse_finalize());
}

TEST(DcSignals, EachScopeReachesTheRightServers) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size % 3 != 0) GTEST_SKIP() << "runs on nodes of 3 ranks";
  const int is_client =
      start_with_events(R"(<dedicated cores="1"/><virtual-nodes ranks-per-node="3"/>)");
  if (is_client) {
    MPI_Comm comm;
    expect_ok(ecluse_client_comm_get(&comm));
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    for (int it = 0; it < 3; ++it) {
      expect_ok(ecluse_signal("core"));
      expect_ok(ecluse_signal("group"));
      if (rank == 0 && it == 1) expect_ok(ecluse_signal("bcast"));
      expect_ok(ecluse_signal("here"));
      expect_ok(ecluse_end_iteration());
    }
    expect_ok(ecluse_stop());
    EXPECT_EQ(local_calls, 3);
    EXPECT_EQ(core_calls + bcast_calls + group_calls, 0);
  } else {
    EXPECT_EQ(core_calls, 2 * 3);  // two clients per node, three iterations
    EXPECT_EQ(group_calls, 3);     // once per iteration, when both clients signalled
    EXPECT_EQ(last_group_iteration, 2);
    EXPECT_EQ(bcast_calls, 1);  // every server, once
    EXPECT_EQ(local_calls, 0);
  }
  expect_ok(ecluse_finalize());
}

TEST(DcSignals, GroupSignalsSentAfterTheFirstServersClientsStoppedAreCounted) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 6) GTEST_SKIP() << "runs on one node of 6 ranks";
  // Two dedicated cores (world ranks 4 and 5), four clients: 0 and 1 go to the first core,
  // 2 and 3 to the second. Group signals of the node go to the first core, whose own clients
  // stop at once while the others signal later: it must still count them.
  const int is_client =
      start_with_events(R"(<dedicated cores="2"/><virtual-nodes ranks-per-node="6"/>)");
  if (is_client) {
    MPI_Comm comm;
    expect_ok(ecluse_client_comm_get(&comm));
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank >= 2) std::this_thread::sleep_for(std::chrono::milliseconds(500));
    for (int it = 0; it < 3; ++it) {
      expect_ok(ecluse_signal("group"));
      expect_ok(ecluse_end_iteration());
    }
    expect_ok(ecluse_stop());
  } else {
    int world = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    EXPECT_EQ(group_calls, world == 4 ? 3 : 0) << "world rank " << world;
  }
  expect_ok(ecluse_finalize());
}

// A job's ending signal while the server is inside an action (docs/reliability.md, "Signals"):
// its signals' thread writes the partial report's entry while the action still runs, where the
// server once acted on it only when the action returned (after a launcher's SIGKILL, often).
std::string g_report;
bool g_entry_while_acting = false;

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void on_term(const char*, int32_t, int32_t, const char*) {
  static bool raised = false;  // once: a second signal a second later would end the server
  if (raised) return;
  raised = true;
  std::raise(SIGTERM);  // on this thread, the server's: the handler only records it
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    if (text_of(g_report).find("received SIGTERM") != std::string::npos) {
      g_entry_while_acting = true;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

TEST(DcSignals, AJobsEndingSignalIsSaidWhileTheServerIsInAnAction) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size % 3 != 0) GTEST_SKIP() << "runs on nodes of 3 ranks";
  g_report = ecluse::test::fresh_dir("dc_signal_in_action") + "/term-report.json";
  const std::string xml = R"(<simulation name="term"><architecture><dedicated cores="1"/>
    <virtual-nodes ranks-per-node="3"/></architecture><actions>
    <event name="term" action="on_term" scope="core"/></actions><report file=")" +
                          g_report + R"(" summary="false"/></simulation>)";
  expect_ok(ecluse_initialize_string(xml.c_str(), MPI_COMM_WORLD));
  expect_ok(ecluse_bind("term", on_term));
  int is_client = 0;
  expect_ok(ecluse_start(&is_client));
  if (is_client) {
    for (int it = 0; it < 3; ++it) {
      expect_ok(ecluse_signal("term"));
      expect_ok(ecluse_end_iteration());
    }
    expect_ok(ecluse_stop());  // as usual: the server serves on and the run ends as any other
  } else {
    EXPECT_TRUE(g_entry_while_acting);
  }
  expect_ok(ecluse_finalize());
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    EXPECT_NE(text_of(g_report).find("\"complete\": true"), std::string::npos);
  }
}

}  // namespace
