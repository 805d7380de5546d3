// Dedicated nodes with real ranks on virtual nodes: every block read back bit for bit from the
// servers' files, ratios that divide and that do not, backpressure from a tiny receive memory,
// the same global data as time partitioning and dedicated cores, idle servers that sleep.
#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "ApiRun.hpp"
#include "BlockValues.hpp"
#include "TestSupport.hpp"
#include "ecluse/ecluse.h"

namespace {

namespace fs = std::filesystem;
using ecluse::test::as_bytes;
using ecluse::test::expect_ok;
using ecluse::test::read_dataset;
using ecluse::test::world_rank;
using ecluse::test::world_size;

/** {ranks per node, dedicated cores per node (0), dedicated nodes}. */
struct RunSetup : ecluse::test::ApiSetup {
  RunSetup(int per_node, int dedicated_nodes) {
    ranks_per_node = per_node;
    cores = 0;
    nodes = dedicated_nodes;
  }
};

std::string config(const std::string& dir, const RunSetup& s) {
  return ecluse::test::api_config("dn", dir, s);
}

// False: the last iteration's end_iteration is "forgotten" (finalize must still store it).
bool g_end_last_iteration = true;

double statistic(const char* name) {
  double value = -1;
  expect_ok(ecluse_get_statistic(name, &value));
  return value;
}

struct Outcome {
  bool is_client = false;
  int clients = 0;
  double credit_waits = 0;    // summed over clients
  double peak_held = 0;       // highest over servers
  double receive_memory = 0;  // of that server
};

Outcome run(const std::string& dir, const RunSetup& s, int iterations) {
  const auto started = ecluse::test::run_clients(
      config(dir, s), iterations,
      [&](int it, int source) { ecluse::test::write_api_iteration(it, source, s.domains); },
      g_end_last_iteration);
  Outcome o;
  o.is_client = started.is_client;
  if (o.is_client && s.nodes > 0) {
    o.credit_waits = statistic("dn.credit_waits");
  } else if (s.nodes > 0) {
    o.peak_held = statistic("dn.peak_held_bytes");
    o.receive_memory = statistic("dn.receive_memory_bytes");
  }
  expect_ok(ecluse_finalize());
  o.clients = ecluse::test::max_over_world(started.clients);
  MPI_Allreduce(MPI_IN_PLACE, &o.credit_waits, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double pair[2] = {o.peak_held, o.receive_memory};
  MPI_Allreduce(MPI_IN_PLACE, pair, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  o.peak_held = pair[0];
  o.receive_memory = pair[1];
  return o;
}

/** HDF5 files of iteration `it` in dir (any writer naming). */
std::vector<std::string> files_of(const std::string& dir, int it) {
  std::vector<std::string> files;
  const std::string prefix = "dn_It" + std::to_string(it) + "_";
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && entry.path().extension() == ".h5") {
      files.push_back(entry.path().string());
    }
  }
  return files;
}

/** Every (source, block) of every iteration found exactly once, bit for bit, in `files`
 * files per iteration. */
void check_blocks(const std::string& dir, int iterations, int clients, int files, int domains) {
  for (int it = 0; it < iterations; ++it) {
    const auto names = files_of(dir, it);
    EXPECT_EQ(static_cast<int>(names.size()), files) << "files of iteration " << it;
    ecluse::test::check_api_iteration(names, it, clients, domains);
  }
}

void round_trip(const RunSetup& s, const std::string& name, int files) {
  const std::string dir = ecluse::test::fresh_dir(name);
  const Outcome o = run(dir, s, 4);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) check_blocks(dir, 4, o.clients, files, s.domains);
}

// end_iteration forgotten after the last writes: the iteration is stored all the same, by the
// dedicated node at stop and by time partitioning at finalize (the same in every approach).
TEST(ApiDn, AnIterationNotEndedIsStoredAsInTimePartitioning) {
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks";
  g_end_last_iteration = false;
  round_trip({1, 1}, "dn-unended", 1);
  round_trip({1, 0}, "tp-unended", world_size());
  g_end_last_iteration = true;
}

// The dedicated node's "disk" is full at iteration 2 (its block grows past RLIMIT_FSIZE): the
// client learns it at a later end_iteration, through the credit messages; the server at
// finalize; the report counts it, and the files of the other iterations are intact.
TEST(ApiDn, AStoreFailureReachesTheClientAtItsNextEndIteration) {
  if (world_size() != 2) GTEST_SKIP() << "runs with 2 ranks";
  RunSetup s{1, 1};
  s.domains = 1;
  const std::string dir = ecluse::test::fresh_dir("dn-full");
  const std::string report = dir + "/report.json";
  setenv("ECLUSE_REPORT", report.c_str(), 1);
  expect_ok(ecluse_initialize_string(config(dir, s).c_str(), MPI_COMM_WORLD));
  std::vector<int> statuses;
  int failed_at = -1;
  std::string message;
  bool is_client = false;
  {
    const ecluse::test::FileSizeLimit disk(256 * 1024);
    int client = 0;
    expect_ok(ecluse_start(&client));
    is_client = client != 0;
    if (is_client) {
      for (int it = 0; it < 8; ++it) {
        ecluse::test::write_too_big_at_iteration_2(it);
        statuses.push_back(ecluse_end_iteration());
        if (statuses.back() != ECLUSE_OK && failed_at < 0) {
          failed_at = it;
          message = ecluse_error_message();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the server stores
      }
      statuses.push_back(ecluse_stop());
    }
    statuses.push_back(ecluse_finalize());
  }
  unsetenv("ECLUSE_REPORT");
  EXPECT_EQ(std::count(statuses.begin(), statuses.end(), ECLUSE_IO_ERROR), 1);
  if (is_client) {
    EXPECT_GT(failed_at, 2) << "told at an end_iteration after the failed one";
    // The cause travels in the server's credit messages (it said only "an iteration (its log
    // names the store and the cause)").
    EXPECT_EQ(message.substr(0, message.find(": ")),
              "the dedicated node could not store iteration 2 in store 's'")
        << message;
    EXPECT_NE(message.find("/dn-full/dn_It2_Pr0.h5': File too large. Fix: free space on that "
                           "file system or change the FilesPath option of store 's' (1 "
                           "iteration(s) not stored so far; see store_errors in the run "
                           "report)."),
              std::string::npos)
        << message;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  EXPECT_FALSE(std::filesystem::exists(dir + "/dn_It2_Pr0.h5"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/dn_It3_Pr0.h5"));
  const std::string json = ecluse::test::read_text(report);
  EXPECT_NE(json.find("\"store_errors\": 1"), std::string::npos) << json;
}

TEST(ApiDn, OneDedicatedNodeOfOneRank) {
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks";
  round_trip({1, 1}, "dn-1x1", 1);
}

TEST(ApiDn, DedicatedNodeOfTwoRanksServesByNodeThenRank) {
  if (world_size() < 4 || world_size() % 2 != 0) GTEST_SKIP() << "needs nodes of 2 ranks";
  round_trip({2, 1}, "dn-2x1", 2);  // 2 server ranks: 2 files per iteration
}

TEST(ApiDn, RatiosThatDoNotDivide) {
  if (world_size() < 5) GTEST_SKIP() << "needs 5 ranks";
  // 6 ranks: 4 client nodes over 2 dedicated nodes; 8 ranks: 5 client nodes over 3 (2, 2, 1).
  const int dedicated = world_size() >= 8 ? 3 : 2;
  round_trip({1, dedicated}, "dn-ratio", dedicated);
}

TEST(ApiDn, TwoDedicatedNodesOfTwoRanks) {
  if (world_size() != 8) GTEST_SKIP() << "runs with 8 ranks";
  round_trip({2, 2}, "dn-2x2", 4);
}

TEST(ApiDn, OneFilePerDedicatedNode) {
  if (world_size() < 4 || world_size() % 2 != 0) GTEST_SKIP() << "needs nodes of 2 ranks";
  RunSetup s{2, 1};
  s.mode = "FilePerNode";
  round_trip(s, "dn-per-node", 1);
}

TEST(ApiDn, TinyReceiveMemoryForcesBackpressureWithoutLoss) {
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks";
  RunSetup s{1, 1};
  // One client iteration is 2 x (320 + 72) = 784 bytes of payload: the window of each client
  // holds one iteration and a bit, so clients wait for credit nearly every iteration.
  const int clients = world_size() - 1;
  s.buffer = std::to_string(1000 * clients);
  const std::string dir = ecluse::test::fresh_dir("dn-backpressure");
  const Outcome o = run(dir, s, 30);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  check_blocks(dir, 30, o.clients, 1, 2);
  EXPECT_GT(o.credit_waits, 0) << "clients never waited for credit";
  EXPECT_LE(o.peak_held, o.receive_memory) << "server held more than its receive memory";
  EXPECT_EQ(o.receive_memory, 1000.0 * clients);
}

TEST(ApiDn, SkipPolicyDropsWholeBlocksAndLogsThem) {
  if (world_size() != 2) GTEST_SKIP() << "runs with 2 ranks";
  RunSetup s{1, 1};
  s.policy = "skip";
  s.domains = 1;
  s.buffer = "500";  // one field block (320 bytes) and one fort block (72) at most
  const std::string dir = ecluse::test::fresh_dir("dn-skip");
  run(dir, s, 30);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  ecluse::test::check_stored_or_skipped(
      dir, "dn", 30, "no credit from the dedicated node: write of variable 'field' at iteration ");
}

// The global array (24 x 5 doubles) is split in rows over however many clients there are:
// TP, DC and DN write the same collective dataset, whatever their number of clients.
void write_rows(int iterations) {
  MPI_Comm comm;
  expect_ok(ecluse_client_comm_get(&comm));
  int source = 0, clients = 0;
  MPI_Comm_rank(comm, &source);
  MPI_Comm_size(comm, &clients);
  const int rows = 24 / clients;
  expect_ok(ecluse_parameter_set("R", &rows, sizeof rows));
  for (int it = 0; it < iterations; ++it) {
    std::vector<double> v(static_cast<std::size_t>(rows) * 5);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = it * 1000.0 + source * rows * 5 + double(i);
    const std::int64_t pos[2] = {source * rows, 0};
    expect_ok(ecluse_set_position("rows", pos));
    expect_ok(ecluse_write("rows", v.data()));
    expect_ok(ecluse_end_iteration());
  }
  expect_ok(ecluse_stop());
}

std::string rows_config(const std::string& dir, const std::string& dedicated, int rpn) {
  return R"(<simulation name="same" xmlns="urn:ecluse:config:1"><architecture>
    <domains count="1"/>)" +
         dedicated +
         (rpn > 0 ? "<virtual-nodes ranks-per-node=\"" + std::to_string(rpn) + "\"/>" : "") +
         R"(</architecture><data><parameter name="R" type="int" value="1"/>
    <layout name="r" type="double" dimensions="R,5" global="24,5"/>
    <variable name="rows" layout="r" unit="m"/></data>
    <storage><store name="s" type="HDF5"><option key="FileMode">Collective</option>
    <option key="FilesPath">)" +
         dir + R"(</option></store></storage></simulation>)";
}

void run_rows(const std::string& dir, const std::string& dedicated, int rpn) {
  expect_ok(ecluse_initialize_string(rows_config(dir, dedicated, rpn).c_str(), MPI_COMM_WORLD));
  int is_client = 0;
  expect_ok(ecluse_start(&is_client));
  if (is_client) write_rows(3);
  expect_ok(ecluse_finalize());
}

// A second write of the same block in one iteration is refused on the client; the dedicated
// node stores the first one.
TEST(ApiDn, TheSameBlockTwiceInOneIterationIsRefused) {
  if (world_size() != 2) GTEST_SKIP() << "runs with 2 ranks";
  const std::string dir = ecluse::test::fresh_dir("dn-twice");
  expect_ok(ecluse_initialize_string(
      rows_config(dir, R"(<dedicated cores="0" nodes="1"/>)", 1).c_str(), MPI_COMM_WORLD));
  int is_client = 0;
  expect_ok(ecluse_start(&is_client));
  const std::vector<double> first(5, 1.5), second(5, 2.5);
  if (is_client) {
    expect_ok(ecluse_write("rows", first.data()));
    EXPECT_EQ(ecluse_write("rows", second.data()), ECLUSE_ALREADY_WRITTEN);
    EXPECT_STREQ(ecluse_error_message(),
                 "block 0 of variable 'rows' was already written in iteration 0; call "
                 "ecluse_end_iteration between two writes of the same block.");
    expect_ok(ecluse_end_iteration());
    expect_ok(ecluse_stop());
  }
  expect_ok(ecluse_finalize());
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  const auto stored = read_dataset(dir + "/same_It0.h5", "rows");
  EXPECT_EQ(stored.dims, (std::vector<std::uint64_t>{24, 5}));
  EXPECT_EQ(std::vector<unsigned char>(stored.bytes.begin(), stored.bytes.begin() + 40),
            as_bytes(first));
}

TEST(ApiDn, SameDataUnderTimePartitioningDedicatedCoresAndDedicatedNodes) {
  if (world_size() != 4 && world_size() != 8) GTEST_SKIP() << "runs with 4 or 8 ranks";
  // 8 ranks: TP 8 clients; DC nodes of 4 with 1 core (6 clients); DN nodes of 2, one dedicated
  // (6 clients). 4 ranks: 4; nodes of 2 with 1 core (2); nodes of 1, one dedicated (3).
  const int rpn = world_size() / 4;
  const std::string tp = ecluse::test::fresh_dir("same-tp");
  const std::string dc = ecluse::test::fresh_dir("same-dc");
  const std::string dn = ecluse::test::fresh_dir("same-dn");
  run_rows(tp, R"(<dedicated cores="0" nodes="0"/>)", 0);
  run_rows(dc, R"(<dedicated cores="1" nodes="0"/>)", 2 * rpn);
  run_rows(dn, R"(<dedicated cores="0" nodes="1"/>)", rpn);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  for (int it = 0; it < 3; ++it) {
    const std::string name = "/same_It" + std::to_string(it) + ".h5";
    const auto a = read_dataset(tp + name, "rows");
    EXPECT_EQ(a.dims, (std::vector<std::uint64_t>{24, 5}));
    EXPECT_EQ(read_dataset(dc + name, "rows").bytes, a.bytes) << "DC differs at " << it;
    EXPECT_EQ(read_dataset(dn + name, "rows").bytes, a.bytes) << "DN differs at " << it;
    for (const std::string& dir : {tp, dc, dn}) {
      EXPECT_EQ(ecluse::test::read_string_attribute(dir + name, "rows", "units"), "m") << dir;
    }
  }
}

TEST(ApiDn, IdleServerSleeps) {
  if (world_size() != 2) GTEST_SKIP() << "runs with 2 ranks";
  const std::string dir = ecluse::test::fresh_dir("dn-idle");
  const auto idle =
      ecluse::test::measure_idle_server(config(dir, {1, 1}), std::chrono::milliseconds(2000));
  if (world_rank() != 1) return;  // the last node is the dedicated one
  EXPECT_GT(idle.wall, 1.9);
  // A busy-polling MPI receive would use ~100% of a core.
  EXPECT_LT(idle.cpu / idle.wall, 0.05) << "server used " << idle.cpu << " s in " << idle.wall;
  std::printf("idle dedicated-node server: %.4f s CPU over %.2f s (%.2f%%)\n", idle.cpu, idle.wall,
              100 * idle.cpu / idle.wall);
}

// Minor page faults of this process during the first write of a 4 MiB block, and whether the
// data arrived. <buffer prefault> maps the client's outgoing memory at initialize.
long first_write_faults(const std::string& dir, bool prefault) {
  constexpr std::size_t kValues = std::size_t{1} << 19;  // 4 MiB of doubles: 1024 pages
  const std::string xml = R"(<simulation name="pf"><architecture><dedicated nodes="1"/>
    <buffer size="16MiB" prefault=")" +
                          std::string(prefault ? "true" : "false") +
                          R"("/><virtual-nodes ranks-per-node="1"/></architecture><data>
    <layout name="l" type="double" dimensions=")" +
                          std::to_string(kValues) +
                          R"("/><variable name="v" layout="l"/></data><storage>
    <store name="s" type="HDF5"><option key="FilesPath">)" +
                          dir + R"(</option></store></storage></simulation>)";
  expect_ok(ecluse_initialize_string(xml.c_str(), MPI_COMM_WORLD));
  int is_client = 0;
  expect_ok(ecluse_start(&is_client));
  long faults = -1;
  std::vector<double> data(kValues);
  for (std::size_t i = 0; i < kValues; ++i) data[i] = static_cast<double>(i) * 0.5;
  if (is_client) {
    rusage before{};
    rusage after{};
    getrusage(RUSAGE_SELF, &before);
    expect_ok(ecluse_write("v", data.data()));
    getrusage(RUSAGE_SELF, &after);
    faults = after.ru_minflt - before.ru_minflt;
    expect_ok(ecluse_end_iteration());
  }
  expect_ok(ecluse_finalize());
  if (is_client) {
    EXPECT_EQ(read_dataset(dir + "/pf_It0_Pr0.h5", "v/P0").bytes, as_bytes(data));
  }
  return faults;
}

TEST(ApiDn, PrefaultMapsTheClientsOutgoingMemoryAtInitialize) {
  if (world_size() != 2) GTEST_SKIP() << "runs with 2 ranks";
  const long cold = first_write_faults(ecluse::test::fresh_dir("dn-prefault-off"), false);
  const long warm = first_write_faults(ecluse::test::fresh_dir("dn-prefault-on"), true);
  if (world_rank() != 0) return;  // the client
  EXPECT_GE(cold, 900) << "without prefault the copy maps its 1024 pages";
  EXPECT_LT(warm, 100) << "with prefault the pages were mapped at initialize";
  std::printf("first DN write of 4 MiB: %ld minor faults without prefault, %ld with\n", cold, warm);
}

// Blocks of at most 8 KiB travel in batches of up to 32 KiB, larger ones in two messages of their
// own (a batch is sent first, so that the server sees the calls in order); interleaved in one
// iteration, every block arrives in its place, bit for bit; a full batch is sent and a new one
// begun.
TEST(ApiDn, SmallBlocksInBatchesAndLargeOnesApartArriveInOrder) {
  if (world_size() != 2) GTEST_SKIP() << "runs with 2 ranks";
  constexpr int kIterations = 3;
  constexpr int kBlocks = 3;      // of s, l and b, interleaved
  constexpr int kMoreBlocks = 5;  // of m (1000 doubles) after them: 3 fit in a batch
  const std::string dir = ecluse::test::fresh_dir("dn-inline");
  const std::string xml = R"(<simulation name="inl"><architecture><domains count="5"/>
    <dedicated nodes="1"/><buffer size="1MiB"/><virtual-nodes ranks-per-node="1"/></architecture>
    <data><layout name="small" type="double" dimensions="1024"/>
    <layout name="large" type="double" dimensions="1025"/><layout name="more" type="double"
    dimensions="1000"/><variable name="m" layout="more"/><layout name="byte" type="char"
    dimensions="1"/><variable name="s" layout="small"/><variable name="l" layout="large"/>
    <variable name="b" layout="byte"/></data><storage><store name="h" type="HDF5">
    <option key="FilesPath">)" +
                          dir + R"(</option></store></storage></simulation>)";
  const auto values = [](int it, int var, int block, std::size_t n) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = it * 1e6 + var * 1e5 + block * 1e4 + double(i);
    return v;
  };
  expect_ok(ecluse_initialize_string(xml.c_str(), MPI_COMM_WORLD));
  int is_client = 0;
  expect_ok(ecluse_start(&is_client));
  double batched_blocks = -1;
  double batches = -1;
  double sent_blocks = -1;
  if (is_client) {
    for (int it = 0; it < kIterations; ++it) {
      for (int block = 0; block < kBlocks; ++block) {
        expect_ok(ecluse_write_block("s", block, values(it, 0, block, 1024).data()));
        expect_ok(ecluse_write_block("l", block, values(it, 1, block, 1025).data()));
        const char byte = static_cast<char>('a' + it * kBlocks + block);
        expect_ok(ecluse_write_block("b", block, &byte));
      }
      for (int block = 0; block < kMoreBlocks; ++block) {
        expect_ok(ecluse_write_block("m", block, values(it, 3, block, 1000).data()));
      }
      expect_ok(ecluse_end_iteration());
    }
    expect_ok(ecluse_stop());
    batched_blocks = statistic("dn.batched_blocks");
    batches = statistic("dn.batches");
    sent_blocks = statistic("dn.sent_blocks");
  }
  expect_ok(ecluse_finalize());
  if (!is_client) return;
  EXPECT_EQ(batched_blocks, (2.0 * kBlocks + kMoreBlocks) * kIterations) << "all but l";
  // Per iteration: {s0} before l0, {b0 s1} before l1, {b1 s2} before l2, {b2 m0 m1 m2} full,
  // {m3 m4} at its end.
  EXPECT_EQ(batches, 5.0 * kIterations);
  EXPECT_EQ(sent_blocks, (3.0 * kBlocks + kMoreBlocks) * kIterations);
  for (int it = 0; it < kIterations; ++it) {
    const std::string file = dir + "/inl_It" + std::to_string(it) + "_Pr0.h5";
    for (int block = 0; block < kBlocks; ++block) {
      const std::string b = "/P0/B" + std::to_string(block);
      EXPECT_EQ(read_dataset(file, "s" + b).bytes, as_bytes(values(it, 0, block, 1024)));
      EXPECT_EQ(read_dataset(file, "l" + b).bytes, as_bytes(values(it, 1, block, 1025)));
      const std::vector<char> byte{static_cast<char>('a' + it * kBlocks + block)};
      EXPECT_EQ(read_dataset(file, "b" + b).bytes, as_bytes(byte));
    }
    for (int block = 0; block < kMoreBlocks; ++block) {
      const std::string b = "/P0/B" + std::to_string(block);
      EXPECT_EQ(read_dataset(file, "m" + b).bytes, as_bytes(values(it, 3, block, 1000)));
    }
  }
}

// A store's frequency: the blocks no store takes at their iteration, and nothing else reads, are
// accepted but not sent (client.unwanted_writes); a constant variable's are sent at their first
// write whatever the frequency; what is stored is unchanged.
TEST(ApiDn, BlocksNoStoreTakesAreNotSent) {
  if (world_size() != 2) GTEST_SKIP() << "runs with 2 ranks";
  constexpr int kIterations = 6;
  const std::string every = ecluse::test::fresh_dir("dn-freq-every");
  const std::string sparse = ecluse::test::fresh_dir("dn-freq-sparse");
  const std::string xml = R"(<simulation name="fq"><architecture><dedicated nodes="1"/>
    <buffer size="1MiB"/><virtual-nodes ranks-per-node="1"/></architecture><data>
    <layout name="l" type="double" dimensions="16"/><variable name="a" layout="l" store="e"/>
    <variable name="b" layout="l" store="s"/><variable name="c" layout="l" store="s"
    time-varying="false"/></data><storage><store name="e" type="HDF5"><option key="FilesPath">)" +
                          every + R"(</option></store><store name="s" type="HDF5" frequency="3">
    <option key="FilesPath">)" +
                          sparse + R"(</option></store></storage></simulation>)";
  const auto values = [](int it, int var) {
    std::vector<double> v(16);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = it * 100 + var * 10 + double(i);
    return v;
  };
  expect_ok(ecluse_initialize_string(xml.c_str(), MPI_COMM_WORLD));
  int is_client = 0;
  expect_ok(ecluse_start(&is_client));
  double sent = -1;
  double unwanted = -1;
  if (is_client) {
    for (int it = 0; it < kIterations; ++it) {
      expect_ok(ecluse_write("a", values(it, 0).data()));
      expect_ok(ecluse_write("b", values(it, 1).data()));
      expect_ok(ecluse_write("c", values(it, 2).data()));
      expect_ok(ecluse_end_iteration());
    }
    expect_ok(ecluse_stop());
    sent = statistic("dn.sent_blocks");
    unwanted = statistic("client.unwanted_writes");
  }
  expect_ok(ecluse_finalize());
  if (!is_client) return;
  EXPECT_EQ(sent, kIterations + 2 + 1) << "a every iteration, b at 0 and 3, c once";
  EXPECT_EQ(unwanted, kIterations - 2) << "b at 1, 2, 4, 5";
  for (int it = 0; it < kIterations; ++it) {
    const std::string name = "/fq_It" + std::to_string(it) + "_Pr0.h5";
    EXPECT_EQ(read_dataset(every + name, "a/P0").bytes, as_bytes(values(it, 0)));
    EXPECT_EQ(fs::exists(sparse + name), it % 3 == 0) << it;
  }
  EXPECT_EQ(read_dataset(sparse + "/fq_It0_Pr0.h5", "b/P0").bytes, as_bytes(values(0, 1)));
  EXPECT_EQ(read_dataset(sparse + "/fq_It3_Pr0.h5", "b/P0").bytes, as_bytes(values(3, 1)));
  EXPECT_EQ(read_dataset(sparse + "/fq_It0_Pr0.h5", "c/P0").bytes, as_bytes(values(0, 2)));
}

// A block grown past the whole credit window, under `policy`: refused with the buffer size to
// set, never dropped with an OK. Returns whether this rank is a client; the caller finalizes.
bool expect_an_oversized_block_refused(const std::string& policy) {
  RunSetup s{1, 1};
  s.buffer = "200";
  s.domains = 1;
  s.policy = policy;
  const std::string dir = ecluse::test::fresh_dir("dn-oversized-" + policy);
  const auto message = ecluse::test::write_a_block_grown_too_big(config(dir, s));
  if (!message) return false;
  EXPECT_EQ(*message,
            "block 0 of variable 'field' needs 320 bytes of the dedicated node's receive "
            "memory but a client may hold at most 200 bytes; raise <buffer size> (now 200 "
            "bytes, at <string>:4:5) to at least 392 bytes (the whole iteration of this client "
            "needs 392 bytes with the parameters' values now).");
  EXPECT_EQ(statistic("dn.skipped_blocks"), 0.0);
  return true;
}

TEST(ApiDn, OversizedBlockAndUnknownStatistic) {
  if (world_size() != 2) GTEST_SKIP() << "runs with 2 ranks";
  if (expect_an_oversized_block_refused("block")) {
    double v = 0;
    EXPECT_EQ(ecluse_get_statistic("dn.nothing", &v), ECLUSE_ARGUMENT_ERROR);
    EXPECT_STREQ(ecluse_error_message(),
                 "no statistic named 'dn.nothing' on this rank; known: client.dropped_allocations, "
                 "client.refused_writes, client.unwanted_writes, "
                 "dn.batched_blocks, dn.batches, dn.credit_bytes, dn.credit_wait_seconds, "
                 "dn.credit_waits, dn.lowest_credit_bytes, dn.sent_blocks, dn.sent_bytes, "
                 "dn.skipped_blocks, "
                 "dn.window_bytes.");
    EXPECT_EQ(statistic("dn.credit_bytes"), 200.0) << "credit returned after the iteration";
  }
  expect_ok(ecluse_finalize());
}

// As under DC: policy skip drops a block for want of credit now, never one larger than the
// whole window.
TEST(ApiDn, OversizedBlockIsRefusedUnderPolicySkipToo) {
  if (world_size() != 2) GTEST_SKIP() << "runs with 2 ranks";
  expect_an_oversized_block_refused("skip");
  expect_ok(ecluse_finalize());
}

TEST(ApiDn, TooFewNodesIsAnErrorOnEveryRank) {
  if (world_size() != 3) GTEST_SKIP() << "runs with 3 ranks";
  const std::string dir = ecluse::test::fresh_dir("dn-too-few");
  EXPECT_EQ(ecluse_initialize_string(config(dir, {1, 2}).c_str(), MPI_COMM_WORLD),
            ECLUSE_INIT_ERROR);
  EXPECT_STREQ(ecluse_error_message(),
               "<string>:3:5: <dedicated nodes=\"2\"/> needs at least 4 nodes (one simulation "
               "node per "
               "dedicated node) but the run has 3; start more ranks, set <virtual-nodes "
               "ranks-per-node> lower, or use fewer dedicated nodes. Nodes here come from the "
               "file's <virtual-nodes ranks-per-node=\"1\"/>.");
}

}  // namespace
