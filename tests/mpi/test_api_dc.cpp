// Dedicated cores with real ranks on virtual nodes: every block of every iteration read back
// bit for bit from the servers' files; same data as time partitioning; backpressure; idle CPU.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ApiRun.hpp"
#include "BlockValues.hpp"
#include "TestSupport.hpp"
#include "ecluse/ecluse.h"

namespace {

namespace fs = std::filesystem;
using ecluse::test::as_bytes;
using ecluse::test::expect_ok;
using ecluse::test::field_interior;
using ecluse::test::field_values;
using ecluse::test::read_dataset;
using ecluse::test::world_rank;
using ecluse::test::world_size;

using RunSetup = ecluse::test::ApiSetup;  // {ranks per node, dedicated cores per node}

std::string config(const std::string& dir, const RunSetup& s) {
  return ecluse::test::api_config("dc", dir, s);
}

// False: the last iteration's end_iteration is "forgotten" (the servers must still store it).
bool g_end_last_iteration = true;

/** Runs `iterations` iterations on clients; returns is_client and the number of clients. */
std::pair<bool, int> run(const std::string& dir, const RunSetup& s, int iterations) {
  const auto started = ecluse::test::run_clients(
      config(dir, s), iterations,
      [&](int it, int source) { ecluse::test::write_api_iteration(it, source, s.domains); },
      g_end_last_iteration);
  expect_ok(ecluse_finalize());
  return {started.is_client, ecluse::test::max_over_world(started.clients)};
}

/** Every (source, block) of every iteration, found once among the writers' files, named
 * dc_It<it><tag><writer>.h5 for writer in [0, writers). */
void check_file_per_core(const std::string& dir, int iterations, int clients, int servers,
                         int domains, const std::string& tag = "_Pr") {
  for (int it = 0; it < iterations; ++it) {
    std::vector<std::string> files;
    for (int server = 0; server < servers; ++server) {
      const std::string file =
          dir + "/dc_It" + std::to_string(it) + tag + std::to_string(server) + ".h5";
      if (fs::exists(file)) files.push_back(file);
    }
    EXPECT_EQ(static_cast<int>(files.size()), servers) << "one file per server and iteration";
    ecluse::test::check_api_iteration(files, it, clients, domains);
  }
}

int servers_for(const RunSetup& s) {
  const int size = world_size();
  return (size + s.ranks_per_node - 1) / s.ranks_per_node * s.cores;
}

void round_trip(const RunSetup& s, const std::string& name) {
  const std::string dir = ecluse::test::fresh_dir(name);
  const auto [is_client, clients] = run(dir, s, 4);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) check_file_per_core(dir, 4, clients, servers_for(s), s.domains);
}

TEST(ApiDc, ANodeWithoutClientsIsAnErrorOnEveryRank) {
  if (world_size() != 3) GTEST_SKIP() << "runs with 3 ranks";
  const std::string dir = ecluse::test::fresh_dir("no-clients");
  const int status = ecluse_initialize_string(config(dir, {2, 1}).c_str(), MPI_COMM_WORLD);
  EXPECT_EQ(status, ECLUSE_INIT_ERROR);
  EXPECT_STREQ(ecluse_error_message(),
               "<string>:3:5: node 1 has 1 rank(s) but <dedicated cores=\"1\"/> leaves none for "
               "the "
               "simulation; run at least 2 ranks per node (every dedicated core needs a client) "
               "or lower the number of dedicated cores. Nodes here come from the file's "
               "<virtual-nodes ranks-per-node=\"2\"/>.");
}

TEST(ApiDc, OneDedicatedCorePerNodeOfTwoRanks) {
  if (world_size() % 2 != 0) GTEST_SKIP() << "needs an even number of ranks";
  round_trip({2, 1}, "dc-2x1");
}

// Every ecluse_write copied with streaming stores (threshold 0) reaches the server's files
// intact: the stores are visible to the dedicated core's process once the block is announced.
// (Heads and tails of every size and alignment: tests/unit/test_copy_block.cpp.)
TEST(ApiDc, StreamingCopyStoresTheSameBytes) {
  if (world_size() % 2 != 0) GTEST_SKIP() << "needs an even number of ranks";
  RunSetup s{2, 1};
  s.copy = "streaming";
  round_trip(s, "dc-streaming");
}

TEST(ApiDc, OneDedicatedCoreServesSeveralClientsPartitioned) {
  if (world_size() < 3) GTEST_SKIP() << "needs 3 ranks";
  RunSetup s{world_size() >= 6 ? 3 : world_size(), 1};
  if (world_size() % s.ranks_per_node != 0) s.ranks_per_node = world_size();
  s.allocator = "partitioned";
  round_trip(s, "dc-partitioned");
}

TEST(ApiDc, TwoDedicatedCoresPerNodeWithUnevenClients) {
  if (world_size() < 4) GTEST_SKIP() << "needs 4 ranks";
  // 4 ranks per node: 2 clients, 2 servers; 6 or 8 ranks: uneven last node or 2 nodes.
  RunSetup s{4, 2};
  if (world_size() == 6) s.ranks_per_node = 6;  // 4 clients over 2 servers
  round_trip(s, "dc-2cores");
}

TEST(ApiDc, OneFilePerNodeGathersTheNodesServers) {
  if (world_size() % 4 != 0) GTEST_SKIP() << "runs on nodes of 4 ranks";
  RunSetup s{4, 2};
  s.mode = "FilePerNode";
  const std::string dir = ecluse::test::fresh_dir("dc-per-node");
  const auto [is_client, clients] = run(dir, s, 3);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) check_file_per_core(dir, 3, clients, world_size() / 4, 2, "_Node");
}

TEST(ApiDc, ATinyEventQueueFillsAndDrainsWithoutStalling) {
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks";
  RunSetup s{world_size(), 1};
  s.queue = 2;  // 4 block events + 1 end per client and iteration: the queue is full often
  const std::string dir = ecluse::test::fresh_dir("dc-tiny-queue");
  const auto [is_client, clients] = run(dir, s, 20);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) check_file_per_core(dir, 20, clients, 1, 2);
}

TEST(ApiDc, AnIterationNotEndedIsStored) {
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks";
  g_end_last_iteration = false;
  round_trip({world_size(), 1}, "dc-unended");
  g_end_last_iteration = true;
}

TEST(ApiDc, NodesOfUnequalSizes) {
  if (world_size() < 6) GTEST_SKIP() << "needs 6 ranks";
  RunSetup s{world_size() - 2, 1};  // 6 ranks: nodes of 4 and 2; 8 ranks: nodes of 6 and 2
  round_trip(s, "dc-unequal");
}

TEST(ApiDc, SameCollectiveDataAsTimePartitioning) {
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks";
  RunSetup tp{world_size(), 0};
  tp.mode = "Collective";
  tp.domains = 1;
  RunSetup dc = tp;
  dc.cores = 1;
  const std::string dir_tp = ecluse::test::fresh_dir("same-tp");
  const std::string dir_dc = ecluse::test::fresh_dir("same-dc");
  // The global array depends on the number of clients, so compare the part both cover.
  run(dir_tp, tp, 2);
  const auto [is_client, clients] = run(dir_dc, dc, 2);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  for (int it = 0; it < 2; ++it) {
    const std::string name = "/dc_It" + std::to_string(it) + ".h5";
    const auto a = read_dataset(dir_tp + name, "field");
    const auto b = read_dataset(dir_dc + name, "field");
    ASSERT_EQ(b.dims, (std::vector<std::uint64_t>{static_cast<std::uint64_t>(6 * clients), 5}));
    const std::size_t common = b.bytes.size();
    EXPECT_TRUE(std::equal(b.bytes.begin(), b.bytes.end(), a.bytes.begin())) << common;
  }
  EXPECT_LT(std::distance(fs::directory_iterator(dir_dc), fs::directory_iterator()),
            std::distance(fs::directory_iterator(dir_tp), fs::directory_iterator()) + 1);
}

TEST(ApiDc, SmallBufferIsReusedUnderBackpressure) {
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks";
  RunSetup s{world_size(), 1};
  // One iteration of one client is 2 blocks x (320 + 72) bytes; the buffer holds about two
  // iterations of all clients, so clients wait for the server again and again.
  s.buffer = std::to_string(2 * 2 * (320 + 72 + 128) * (world_size() - 1) + 4096);
  const std::string dir = ecluse::test::fresh_dir("reuse");
  const auto [is_client, clients] = run(dir, s, 40);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) check_file_per_core(dir, 40, clients, 1, 2);
}

TEST(ApiDc, SkipPolicyDropsWholeBlocksAndLogsThem) {
  if (world_size() != 2) GTEST_SKIP() << "runs with 2 ranks";
  RunSetup s{2, 1};
  s.policy = "skip";
  s.domains = 1;
  s.buffer = "1000";  // room for one field block (320 bytes) and one fort block (72) at most
  const std::string dir = ecluse::test::fresh_dir("skip");
  run(dir, s, 30);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  ecluse::test::check_stored_or_skipped(dir, "dc", 30,
                                        "buffer full: write of variable 'field' at iteration ");
}

TEST(ApiDc, IdleDedicatedCoreSleeps) {
  if (world_size() != 2) GTEST_SKIP() << "runs with 2 ranks";
  const std::string dir = ecluse::test::fresh_dir("idle");
  const auto idle =
      ecluse::test::measure_idle_server(config(dir, {2, 1}), std::chrono::milliseconds(1500));
  if (world_rank() != 1) return;  // the node's last rank is its dedicated core
  EXPECT_GT(idle.wall, 1.4);
  EXPECT_LT(idle.cpu / idle.wall, 0.02) << "server used " << idle.cpu << " s in " << idle.wall;
}

// A block grown past a client's whole share, under `policy`: refused with the buffer size to
// set, never dropped with an OK (policy skip drops a block for want of room now, not one larger
// than all the room there is).
void expect_an_oversized_block_refused(const std::string& policy) {
  RunSetup s{2, 1};
  s.buffer = "200";
  s.domains = 1;
  s.policy = policy;
  const std::string dir = ecluse::test::fresh_dir("oversized-" + policy);
  const auto message = ecluse::test::write_a_block_grown_too_big(config(dir, s));
  if (message) {
    EXPECT_EQ(*message,
              "block 0 of variable 'field' needs 384 bytes of buffer (data and bookkeeping) but "
              "a client may hold at most 192 bytes; raise <buffer size> (now 200 bytes, at "
              "<string>:4:5) to at least 640 bytes (the whole iteration of this client needs "
              "576 bytes with the parameters' values now).");
    double skipped = -1;
    expect_ok(ecluse_get_statistic("dc.skipped_blocks", &skipped));
    EXPECT_EQ(skipped, 0.0);
  }
  expect_ok(ecluse_finalize());
}

TEST(ApiDc, ClearedAndOversizedBlocks) {
  if (world_size() != 2) GTEST_SKIP() << "runs with 2 ranks";
  expect_an_oversized_block_refused("block");
}

TEST(ApiDc, OversizedBlockIsRefusedUnderPolicySkipToo) {
  if (world_size() != 2) GTEST_SKIP() << "runs with 2 ranks";
  expect_an_oversized_block_refused("skip");
}

// Client 0 stops after 2 iterations, client 1 after 4; both start again (Damaris's restart):
// they go on together at iteration 4, not client 0 at 2 (iterations its server already stored,
// which client 1 would never end again).
TEST(ApiDc, ClientsThatStoppedAtDifferentIterationsRestartTogether) {
  if (world_size() != 3) GTEST_SKIP() << "runs with 3 ranks";
  RunSetup s{3, 1};
  const std::string dir = ecluse::test::fresh_dir("restart-uneven");
  expect_ok(ecluse_initialize_string(config(dir, s).c_str(), MPI_COMM_WORLD));
  int is_client = 0;
  expect_ok(ecluse_start(&is_client));
  int source = -1;
  if (is_client) {
    MPI_Comm comm = MPI_COMM_NULL;
    expect_ok(ecluse_client_comm_get(&comm));
    MPI_Comm_rank(comm, &source);
    for (int it = 0; it < (source == 0 ? 2 : 4); ++it) {
      ecluse::test::write_api_iteration(it, source, 2);
      expect_ok(ecluse_end_iteration());
    }
    expect_ok(ecluse_stop());
  }
  expect_ok(ecluse_start(&is_client));  // every rank: the restarted phase
  if (is_client) {
    int iteration = -1;
    expect_ok(ecluse_get_iteration(&iteration));
    EXPECT_EQ(iteration, 4);
    for (int it = 4; it < 6; ++it) {
      ecluse::test::write_api_iteration(it, source, 2);
      expect_ok(ecluse_end_iteration());
    }
    expect_ok(ecluse_stop());
  }
  expect_ok(ecluse_finalize());
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  for (int it : {0, 1, 4, 5}) {
    ecluse::test::check_api_iteration({dir + "/dc_It" + std::to_string(it) + "_Pr0.h5"}, it, 2, 2);
  }
  for (int it : {2, 3}) {  // client 1 alone
    const std::string file = dir + "/dc_It" + std::to_string(it) + "_Pr0.h5";
    EXPECT_EQ(ecluse::test::read_dataset(file, "field/P1/B0").dims,
              (std::vector<std::uint64_t>{6, 5}));
  }
}

TEST(ApiDc, ABlockThatCanNeverFitIsRefusedAtInitialize) {
  if (world_size() != 2) GTEST_SKIP() << "runs with 2 ranks";
  RunSetup s{2, 1};
  s.buffer = "200";
  s.domains = 1;
  const std::string dir = ecluse::test::fresh_dir("never-fits");
  EXPECT_EQ(ecluse_initialize_string(config(dir, s).c_str(), MPI_COMM_WORLD),
            ECLUSE_ALLOCATION_ERROR);
  EXPECT_STREQ(ecluse_error_message(),
               "variable 'field' has blocks of 384 bytes of buffer (data and bookkeeping) but a "
               "client may hold at most 192 bytes: no write of it could ever be handed over; "
               "raise <buffer size> (now 200 bytes, at <string>:4:5) to at least 448 bytes.");
}

TEST(ApiDc, TheSameBlockTwiceInOneIterationIsRefused) {
  if (world_size() != 2) GTEST_SKIP() << "runs with 2 ranks";
  RunSetup s{2, 1};
  s.domains = 1;
  const std::string dir = ecluse::test::fresh_dir("twice");
  expect_ok(ecluse_initialize_string(config(dir, s).c_str(), MPI_COMM_WORLD));
  int is_client = 0;
  expect_ok(ecluse_start(&is_client));
  if (is_client) {
    expect_ok(ecluse_write("field", field_values(0, 0, 0).data()));
    EXPECT_EQ(ecluse_write("field", field_values(0, 0, 0).data()), ECLUSE_ALREADY_WRITTEN);
    EXPECT_STREQ(ecluse_error_message(),
                 "block 0 of variable 'field' was already written in iteration 0; call "
                 "ecluse_end_iteration between two writes of the same block.");
    void* room = nullptr;
    EXPECT_EQ(ecluse_alloc("field", &room), ECLUSE_ALREADY_WRITTEN);
    expect_ok(ecluse_alloc("grp/fort", &room));
    expect_ok(ecluse_commit("grp/fort"));
    EXPECT_EQ(ecluse_alloc("grp/fort", &room), ECLUSE_ALREADY_WRITTEN);
    expect_ok(ecluse_end_iteration());
    expect_ok(ecluse_write("field", field_values(1, 0, 0).data()));
    expect_ok(ecluse_end_iteration());
    expect_ok(ecluse_stop());
  }
  expect_ok(ecluse_finalize());
  MPI_Barrier(MPI_COMM_WORLD);
  for (int it = 0; it < 2; ++it) {
    const std::string file = dir + "/dc_It" + std::to_string(it) + "_Pr0.h5";
    EXPECT_EQ(read_dataset(file, "field/P0").bytes, as_bytes(field_interior(it, 0, 0)));
  }
}

double statistic(const char* name) {
  double value = -1;
  expect_ok(ecluse_get_statistic(name, &value));
  return value;
}

// ecluse_alloc of a block no store takes at its iteration (a store's frequency), of a disabled
// variable, of a constant already written: the client's own memory, not the node's buffer; such
// a commit sends nothing; the rules of an allocated block hold for it all the same.
TEST(ApiDc, AllocOfABlockNoStoreTakesUsesNoBufferRoom) {
  if (world_size() != 2) GTEST_SKIP() << "runs with 2 ranks";
  constexpr int kIterations = 6;
  constexpr std::size_t kValues = 2048;  // 16 KiB: the buffer holds a few blocks only
  const std::string every = ecluse::test::fresh_dir("dc-alloc-every");
  const std::string sparse = ecluse::test::fresh_dir("dc-alloc-sparse");
  const std::string xml = R"(<simulation name="fq"><architecture><dedicated cores="1"/>
    <buffer size="80KiB"/><virtual-nodes ranks-per-node="2"/></architecture><data>
    <layout name="l" type="double" dimensions="2048"/><variable name="a" layout="l" store="e"/>
    <variable name="b" layout="l" store="s"/><variable name="c" layout="l" store="s"
    time-varying="false"/><variable name="off" layout="l" enabled="false"/></data><storage>
    <store name="e" type="HDF5"><option key="FilesPath">)" +
                          every + R"(</option></store><store name="s" type="HDF5" frequency="3">
    <option key="FilesPath">)" +
                          sparse + R"(</option></store></storage></simulation>)";
  const auto fill = [](void* room, int it, int var) {
    auto* v = static_cast<double*>(room);
    for (std::size_t i = 0; i < kValues; ++i) v[i] = it * 1e4 + var * 1e3 + double(i);
  };
  const auto values = [&](int it, int var) {
    std::vector<double> v(kValues);
    fill(v.data(), it, var);
    return v;
  };
  expect_ok(ecluse_initialize_string(xml.c_str(), MPI_COMM_WORLD));
  int is_client = 0;
  expect_ok(ecluse_start(&is_client));
  double sent = -1, unwanted = -1, dropped = -1;
  if (is_client) {
    for (int it = 0; it < kIterations; ++it) {
      void* room = nullptr;
      for (const char* name : {"a", "b", "c", "off"}) {
        expect_ok(ecluse_alloc(name, &room));
        ASSERT_NE(room, nullptr);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(room) % 64, 0u) << name;
        fill(room, it, name[0] - 'a');
        if (name[0] == 'b' && it == 1) {  // an allocated block is the same whoever holds it
          EXPECT_EQ(ecluse_write("b", values(it, 1).data()), ECLUSE_ARGUMENT_ERROR);
          EXPECT_STREQ(ecluse_error_message(),
                       "write of block 0 of variable 'b': the block is allocated "
                       "(ecluse_alloc) and not committed; fill it and commit it, or clear it "
                       "before writing the block.");
        }
        if (name[0] == 'b' && it == 2) {
          expect_ok(ecluse_clear("b"));
          EXPECT_EQ(ecluse_commit("b"), ECLUSE_BLOCK_NOT_FOUND);
          expect_ok(ecluse_alloc("b", &room));
          fill(room, it, 1);
        }
        if (name[0] == 'b' && it == 4) continue;  // never committed: dropped at the end
        expect_ok(ecluse_commit(name));
      }
      expect_ok(ecluse_end_iteration());
    }
    expect_ok(ecluse_stop());
    sent = statistic("dc.sent_blocks");
    unwanted = statistic("client.unwanted_writes");
    dropped = statistic("client.dropped_allocations");
  }
  expect_ok(ecluse_finalize());
  MPI_Barrier(MPI_COMM_WORLD);
  if (!is_client) return;
  EXPECT_EQ(sent, kIterations + 2 + 1) << "a every iteration, b at 0 and 3, c once";
  EXPECT_EQ(unwanted, 3) << "b at 1, 2 and 5 (at 4 it was dropped)";
  EXPECT_EQ(dropped, 1) << "b at 4";
  for (int it = 0; it < kIterations; ++it) {
    const std::string name = "/fq_It" + std::to_string(it) + "_Pr0.h5";
    EXPECT_EQ(read_dataset(every + name, "a/P0").bytes, as_bytes(values(it, 0)));
    EXPECT_EQ(fs::exists(sparse + name), it % 3 == 0) << it;
  }
  EXPECT_EQ(read_dataset(sparse + "/fq_It0_Pr0.h5", "b/P0").bytes, as_bytes(values(0, 1)));
  EXPECT_EQ(read_dataset(sparse + "/fq_It3_Pr0.h5", "b/P0").bytes, as_bytes(values(3, 1)));
  EXPECT_EQ(read_dataset(sparse + "/fq_It0_Pr0.h5", "c/P0").bytes, as_bytes(values(0, 2)));
}

struct DiskRun {
  std::vector<int> statuses;  // of end_iteration, stop and finalize, in order
  std::string message;        // of the first that failed
  int is_client = 0;
};

/** A run of 4 iterations whose blocks grow past RLIMIT_FSIZE at iteration 2 (`limited`: on this
 * rank; a dedicated core then cannot store them). */
DiskRun run_filling_the_disk(const std::string& xml, bool limited) {
  DiskRun run;
  expect_ok(ecluse_initialize_string(xml.c_str(), MPI_COMM_WORLD));
  auto keep = [&](int status) {
    run.statuses.push_back(status);
    if (status != ECLUSE_OK && run.message.empty()) run.message = ecluse_error_message();
  };
  std::optional<ecluse::test::FileSizeLimit> disk;
  if (limited) disk.emplace(256 * 1024);
  expect_ok(ecluse_start(&run.is_client));
  if (run.is_client) {
    for (int it = 0; it < 4; ++it) {
      ecluse::test::write_too_big_at_iteration_2(it);
      keep(ecluse_end_iteration());
    }
    keep(ecluse_stop());
  }
  keep(ecluse_finalize());
  return run;
}

// The server's "disk" is full from iteration 2 on (its blocks grow past RLIMIT_FSIZE): the
// client learns it at an end_iteration or at finalize, the server at finalize, the report counts
// it, and the files of iterations 0 and 1 are intact.
TEST(ApiDc, AStoreFailureOnTheServerReachesTheClientAndTheReport) {
  if (world_size() != 2) GTEST_SKIP() << "runs with 2 ranks";
  RunSetup s{2, 1};
  s.domains = 1;
  const std::string dir = ecluse::test::fresh_dir("dc-full");
  const std::string report = dir + "/report.json";
  setenv("ECLUSE_REPORT", report.c_str(), 1);
  const auto [statuses, message, is_client] = run_filling_the_disk(config(dir, s), true);
  unsetenv("ECLUSE_REPORT");
  EXPECT_EQ(std::count(statuses.begin(), statuses.end(), ECLUSE_IO_ERROR), 1);
  EXPECT_EQ(std::count(statuses.begin(), statuses.end(), ECLUSE_OK),
            static_cast<long>(statuses.size()) - 1);
  EXPECT_EQ(message.substr(0, message.find(": ")),
            "the dedicated core could not store iteration 2 in store 's'")
      << message;
  EXPECT_NE(message.find("/dc-full/dc_It2_Pr0.h5': File too large."), std::string::npos) << message;
  EXPECT_NE(
      message.find(" (1 iteration(s) not stored so far; see store_errors in the run report)."),
      std::string::npos)
      << message;
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  for (int it = 0; it < 2; ++it) {
    const std::string file = dir + "/dc_It" + std::to_string(it) + "_Pr0.h5";
    std::vector<double> values(40, it);
    EXPECT_EQ(read_dataset(file, "field/P0").bytes,
              as_bytes(std::vector<double>(values.begin() + 5, values.end() - 5)));
  }
  EXPECT_FALSE(fs::exists(dir + "/dc_It2_Pr0.h5"));
  const std::string json = ecluse::test::read_text(report);
  EXPECT_NE(json.find("\"store_errors\": 1"), std::string::npos) << json;
}

// Two nodes; only node 1's dedicated core cannot write (its "disk" is full from iteration 2).
// Node 1's client learns it (at a later end_iteration or at finalize) with its own server's
// message; node 0's client, whose data was all stored, learns it at finalize, named as another
// server's failure.
TEST(ApiDc, AnotherNodesStoreFailureIsNamedAsAnothers) {
  if (world_size() != 4) GTEST_SKIP() << "runs with 4 ranks";
  RunSetup s{2, 1};
  s.domains = 1;
  const std::string dir = ecluse::test::fresh_dir("dc-full-other");
  // Node 1: world ranks 2 and 3.
  const auto [statuses, message, is_client] =
      run_filling_the_disk(config(dir, s), world_rank() >= 2);
  if (!is_client) return;
  EXPECT_EQ(std::count(statuses.begin(), statuses.end(), ECLUSE_IO_ERROR), 1);
  const std::string own = "the dedicated core could not store iteration 2 in store 's'";
  if (world_rank() >= 2) {
    EXPECT_EQ(message.substr(0, own.size()), own) << message;  // at an end_iteration or finalize
  } else {
    const std::string other =
        "another Ecluse server failed to store data of its clients (this client's own server "
        "stored all of this client's): " +
        own;
    EXPECT_EQ(message.substr(0, other.size()), other) << message;
    EXPECT_EQ(statuses.back(), ECLUSE_IO_ERROR) << "told at finalize";
  }
}

}  // namespace
