// The C API under time partitioning with real ranks: every block read back bit for bit.
#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/resource.h>

#include <csignal>
#include <cstdint>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include "TestSupport.hpp"
#include "ecluse/ecluse.h"

namespace {

using ecluse::test::as_bytes;
using ecluse::test::read_dataset;

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int world_size() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

std::string config(const std::string& dir, const std::string& data, const std::string& mode,
                   int domains = 1) {
  return R"(<simulation name="sim" xmlns="urn:ecluse:config:1"><architecture><domains count=")" +
         std::to_string(domains) + R"("/></architecture><data>)" + data +
         R"(</data><storage><store name="s" type="HDF5"><option key="FileMode">)" + mode +
         R"(</option><option key="FilesPath">)" + dir + R"(</option></store></storage>
         <actions><event name="ping" action="no_such_function"/></actions></simulation>)";
}

void expect_ok(int status) {
  ASSERT_EQ(status, ECLUSE_OK) << ecluse_error_message();
}

/** Initializes from a string; finalizes at scope exit. */
struct Init {
  explicit Init(const std::string& xml) {
    status = ecluse_initialize_string(xml.c_str(), MPI_COMM_WORLD);
  }
  ~Init() {
    if (status == ECLUSE_OK) ecluse_finalize();
  }
  int status;
};

std::string file_per_process(const std::string& dir, int it, int rank) {
  return dir + "/sim_It" + std::to_string(it) + "_Pr" + std::to_string(rank) + ".h5";
}

TEST(ApiTp, SeveralDomainsTypesGhostsAndGroupsReadBackBitForBit) {
  const std::string dir = ecluse::test::fresh_dir("fpp");
  const std::string data = R"(
    <parameter name="N" type="int" value="5"/>
    <layout name="g" type="double" dimensions="N+2,3" ghosts="1:1,0:0"/>
    <layout name="b" type="char" dimensions="7"/>
    <group name="grp"><layout name="l" type="long" dimensions="2,N"/>
      <variable name="v" layout="l" unit="m/s"/></group>
    <variable name="field" layout="g" unit="K"/>
    <variable name="bytes" layout="b"/>)";
  Init init(config(dir, data, "FilePerCore", 2));
  expect_ok(init.status);
  int is_client = 0;
  expect_ok(ecluse_start(&is_client));
  ASSERT_EQ(is_client, 1);
  const int rank = world_rank();
  for (int it = 0; it < 3; ++it) {
    for (int blk = 0; blk < 2; ++blk) {
      std::vector<double> field(7 * 3);
      std::iota(field.begin(), field.end(), 1000.0 * it + 100.0 * blk + 10.0 * rank);
      std::vector<std::int8_t> bytes(7, static_cast<std::int8_t>(-it - blk - rank));
      std::vector<std::int64_t> v(10);
      std::iota(v.begin(), v.end(), (std::int64_t{1} << 40) + it * 100 + blk * 10 + rank);
      const std::int64_t pos[2] = {rank * 5, blk * 3};
      expect_ok(ecluse_set_block_position("field", blk, pos));
      expect_ok(ecluse_write_block("field", blk, field.data()));
      expect_ok(ecluse_write_block("bytes", blk, bytes.data()));
      expect_ok(ecluse_write_block("grp/v", blk, v.data()));
    }
    expect_ok(ecluse_end_iteration());
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int it = 0; it < 3; ++it) {
    const std::string file = file_per_process(dir, it, rank);
    for (int blk = 0; blk < 2; ++blk) {
      const std::string p = "/P" + std::to_string(rank) + "/B" + std::to_string(blk);
      std::vector<double> full(7 * 3);
      std::iota(full.begin(), full.end(), 1000.0 * it + 100.0 * blk + 10.0 * rank);
      std::vector<double> interior(full.begin() + 3, full.end() - 3);  // ghost rows stripped
      const auto f = read_dataset(file, "field" + p);
      EXPECT_EQ(f.dims, (std::vector<std::uint64_t>{5, 3}));
      EXPECT_EQ(f.bytes, as_bytes(interior));
      EXPECT_EQ(read_dataset(file, "bytes" + p).bytes,
                as_bytes(std::vector<std::int8_t>(7, static_cast<std::int8_t>(-it - blk - rank))));
      std::vector<std::int64_t> v(10);
      std::iota(v.begin(), v.end(), (std::int64_t{1} << 40) + it * 100 + blk * 10 + rank);
      EXPECT_EQ(read_dataset(file, "grp/v" + p).bytes, as_bytes(v));
      EXPECT_EQ(ecluse::test::read_int_attribute(file, "field" + p, "global_offset"),
                (std::vector<std::int64_t>{rank * 5, blk * 3}));
      EXPECT_EQ(ecluse::test::read_string_attribute(file, "grp/v" + p, "units"), "m/s");
    }
  }
}

TEST(ApiTp, FortranLayoutIsStoredInCOrderAtItsPosition) {
  const std::string dir = ecluse::test::fresh_dir("fortran");
  const int size = world_size();
  const std::string data =
      R"(<parameter name="NX" type="int" value="4"/><parameter name="NY" type="int" value="3"/>
      <parameter name="P" type="int" value=")" +
      std::to_string(size) + R"("/>
      <layout name="f" type="float" dimensions="NX,NY" global="NX*P,NY" language="fortran"/>
      <variable name="u" layout="f"/>)";
  Init init(config(dir, data, "Collective"));
  expect_ok(init.status);
  const int rank = world_rank();
  // Fortran u(NX, NY): x varies fastest in memory; u(i, j) = 100*(global i) + j.
  std::vector<float> u(4 * 3);
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 4; ++i)
      u[static_cast<std::size_t>(j * 4 + i)] = static_cast<float>(100 * (rank * 4 + i) + j);
  }
  const std::int64_t pos[2] = {rank * 4, 0};  // Fortran order: x offset first
  expect_ok(ecluse_set_position("u", pos));
  expect_ok(ecluse_write("u", u.data()));
  expect_ok(ecluse_end_iteration());
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank != 0) return;
  const auto d = read_dataset(dir + "/sim_It0.h5", "u");
  ASSERT_EQ(d.dims, (std::vector<std::uint64_t>{3, static_cast<std::uint64_t>(4 * size)}));
  std::vector<float> want(static_cast<std::size_t>(3 * 4 * size));
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 4 * size; ++i)
      want[static_cast<std::size_t>(j * 4 * size + i)] = static_cast<float>(100 * i + j);
  }
  EXPECT_EQ(d.bytes, as_bytes(want));
}

// end_iteration is collective among the clients when a store writes collectively: a client that
// ends more iterations than the others gets a message that says so, at its end_iteration, and
// the others at their finalize, instead of mismatched collectives (MPI_ERR_TRUNCATE, a hang);
// what was ended together is stored, the rest counted as not stored.
TEST(ApiTp, ClientsOutOfStepGetAMessageNotAMismatchedCollective) {
  const int size = world_size();
  if (size < 2) GTEST_SKIP() << "needs 2 clients";
  const std::string dir = ecluse::test::fresh_dir("out_of_step");
  const std::string data = R"(<parameter name="P" type="int" value=")" + std::to_string(size) +
                           R"("/><layout name="l" type="double" dimensions="4" global="4*P"/>
      <variable name="v" layout="l"/>)";
  ASSERT_EQ(ecluse_initialize_string(config(dir, data, "Collective").c_str(), MPI_COMM_WORLD),
            ECLUSE_OK);
  const int rank = world_rank();
  const std::int64_t pos[1] = {rank * 4};
  expect_ok(ecluse_set_position("v", pos));
  const int iterations = rank == 0 ? 3 : 2;  // rank 0 ends one more
  const std::string common =
      ". Under time partitioning the clients store each iteration together (store 's'), so "
      "each must call end_iteration as many times as the others before finalize; the "
      "iterations not ended together are not stored.";
  for (int it = 0; it < iterations; ++it) {
    const std::vector<double> v(4, rank * 10.0 + it);
    expect_ok(ecluse_write("v", v.data()));
    if (it < 2) {
      expect_ok(ecluse_end_iteration());
      continue;
    }
    EXPECT_EQ(ecluse_end_iteration(), ECLUSE_IO_ERROR);
    const std::string ahead = std::string(
                                  "the clients are out of step: this client ends iteration "
                                  "2 while another is in finalize after 2 iteration(s)") +
                              common;
    EXPECT_EQ(ecluse_error_message(), ahead);
    // Once out of step, at once and with no collective: the others are in finalize.
    expect_ok(ecluse_write("v", v.data()));
    EXPECT_EQ(ecluse_end_iteration(), ECLUSE_IO_ERROR);
    EXPECT_EQ(ecluse_error_message(), ahead);
  }
  EXPECT_EQ(ecluse_finalize(), ECLUSE_IO_ERROR);
  EXPECT_EQ(std::string(ecluse_error_message()),
            rank == 0 ? "the clients are out of step: this client ends iteration 2 while another "
                        "is in finalize after 2 iteration(s)" +
                            common
                      : "the clients are out of step: this client is in finalize after 2 "
                        "iteration(s) while another ends iteration 2" +
                            common);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank != 0) return;
  for (int it = 0; it < 2; ++it) {
    std::vector<double> want;
    for (int r = 0; r < size; ++r) want.insert(want.end(), 4, r * 10.0 + it);
    EXPECT_EQ(read_dataset(dir + "/sim_It" + std::to_string(it) + ".h5", "v").bytes,
              as_bytes(want));
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/sim_It2.h5"));
}

TEST(ApiTp, LayoutsFollowParametersAndBadValuesAreRefused) {
  const std::string dir = ecluse::test::fresh_dir("param");
  Init init(config(dir, R"(<parameter name="N" type="int" value="2"/>
      <parameter name="D" type="int" value="1"/>
      <layout name="l" type="int" dimensions="N/D"/><variable name="x" layout="l"/>)",
                   "FilePerCore"));
  expect_ok(init.status);
  const int n = 6;
  expect_ok(ecluse_parameter_set("N", &n, sizeof n));
  std::vector<int> x{1, 2, 3, 4, 5, 6};
  expect_ok(ecluse_write("x", x.data()));
  expect_ok(ecluse_end_iteration());
  const int zero = 0;
  EXPECT_EQ(ecluse_parameter_set("D", &zero, sizeof zero), ECLUSE_INVALID_DIMENSIONS);
  EXPECT_STREQ(ecluse_error_message(),
               "parameter 'D' was not changed: the new value would break layout 'l': dimension 1 "
               "\"N/D\": division by zero (N=6, D=0); change the parameter values or the "
               "expression.");
  int d = -1;
  expect_ok(ecluse_parameter_get("D", &d, sizeof d));
  EXPECT_EQ(d, 1);
  long wrong = 0;
  EXPECT_EQ(ecluse_parameter_get("N", &wrong, sizeof wrong), ECLUSE_ARGUMENT_ERROR);
  EXPECT_STREQ(
      ecluse_error_message(),
      "parameter 'N' is of type int (4 bytes) but the buffer has 8 bytes; pass a buffer of "
      "exactly 4 bytes.");
  EXPECT_EQ(ecluse_parameter_get("M", &d, sizeof d), ECLUSE_UNDEFINED_PARAMETER);
  const int three = 3;  // after a write: the block's shape follows too
  expect_ok(ecluse_parameter_set("N", &three, sizeof three));
  const std::int64_t at = 10;  // and so does a new position
  expect_ok(ecluse_set_position("x", &at));
  expect_ok(ecluse_write("x", x.data()));
  expect_ok(ecluse_end_iteration());
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string p = "x/P" + std::to_string(world_rank());
  EXPECT_EQ(read_dataset(file_per_process(dir, 0, world_rank()), p).bytes, as_bytes(x));
  const std::vector<int> first_three(x.begin(), x.begin() + 3);
  EXPECT_EQ(read_dataset(file_per_process(dir, 1, world_rank()), p).bytes, as_bytes(first_three));
  EXPECT_EQ(
      ecluse::test::read_int_attribute(file_per_process(dir, 1, world_rank()), p, "global_offset"),
      (std::vector<std::int64_t>{10}));
}

TEST(ApiTp, BadCallsGetClearErrorsAndTheRunGoesOn) {
  const std::string dir = ecluse::test::fresh_dir("bad");
  std::vector<double> data(4, 1.0);
  EXPECT_EQ(ecluse_write("x", data.data()), ECLUSE_NOT_INITIALIZED);
  EXPECT_STREQ(ecluse_error_message(),
               "Ecluse is not initialized; call ecluse_initialize first (or it was finalized).");
  Init init(config(dir, R"(<layout name="l" type="double" dimensions="4"/>
      <variable name="temp" layout="l"/>)",
                   "FilePerCore", 2));
  expect_ok(init.status);
  EXPECT_EQ(ecluse_initialize_string("<simulation/>", MPI_COMM_WORLD), ECLUSE_ALREADY_INITIALIZED);
  EXPECT_EQ(ecluse_write("tmp", data.data()), ECLUSE_UNDEFINED_VARIABLE);
  EXPECT_STREQ(ecluse_error_message(),
               "variable 'tmp' is not declared in <string>; did you mean 'temp'? Declare it with "
               "<variable name=\"tmp\" layout=\"...\"/>.");
  EXPECT_EQ(ecluse_write_block("temp", 2, data.data()), ECLUSE_INVALID_BLOCK);
  EXPECT_STREQ(ecluse_error_message(),
               "block 2 of variable 'temp' is out of range: <domains count=\"2\"/> allows blocks 0 "
               "to 1.");
  EXPECT_EQ(ecluse_write("temp", nullptr), ECLUSE_ARGUMENT_ERROR);
  EXPECT_EQ(ecluse_signal("pong"), ECLUSE_UNDEFINED_ACTION);
  EXPECT_STREQ(ecluse_error_message(),
               "event 'pong' is not declared in <string>; did you mean 'ping'? Declare it in "
               "<actions> with <event name=\"pong\" action=\"...\"/>.");
  EXPECT_EQ(ecluse_signal("ping"), ECLUSE_BIND_ERROR);
  EXPECT_STREQ(ecluse_error_message(),
               "event 'ping': function 'no_such_function' not found in the program; export it "
               "(extern \"C\", linked with -rdynamic) or bind one with ecluse_bind.");
  expect_ok(ecluse_write("temp", data.data()));
  expect_ok(ecluse_end_iteration());
  int it = -1;
  expect_ok(ecluse_get_iteration(&it));
  EXPECT_EQ(it, 1);
}

// Damaris logs every failed call; so does Ecluse, into the rank's <log FileName> file (the
// program has the code and the message; the file keeps the record). Nothing on stderr from it.
TEST(ApiTp, FailedCallsAreRecordedInTheLogFile) {
  const std::string dir = ecluse::test::fresh_dir("logged");
  std::string xml = config(dir, R"(<layout name="l" type="double" dimensions="4"/>
      <variable name="temp" layout="l"/>)",
                           "FilePerCore");
  xml.replace(xml.find("</simulation>"), 13,
              "<log FileName=\"" + dir + "/log/run\" LogLevel=\"warning\"/></simulation>");
  std::vector<double> data(4, 1.0);
  std::vector<std::string> messages;
  {
    Init init(xml);
    expect_ok(init.status);
    EXPECT_EQ(ecluse_write("tmp", data.data()), ECLUSE_UNDEFINED_VARIABLE);
    messages.emplace_back(ecluse_error_message());
    EXPECT_EQ(ecluse_set_error(ECLUSE_INVALID_DIMENSIONS, "a binding's own check"),
              ECLUSE_INVALID_DIMENSIONS);
    messages.emplace_back(ecluse_error_message());
    expect_ok(ecluse_write("temp", data.data()));
    expect_ok(ecluse_end_iteration());
  }
  const std::string log =
      ecluse::test::read_text(dir + "/log/run." + std::to_string(world_rank()) + ".log");
  const std::string prefix = "[ecluse " + std::to_string(world_rank()) + "] error: call failed: ";
  EXPECT_EQ(log, prefix + messages[0] + "\n" + prefix + messages[1] + "\n");
}

int calls = 0;
int last_iteration = -1;
void count_call(const char*, int32_t, int32_t iteration, const char*) {
  ++calls;
  last_iteration = iteration;
}

TEST(ApiTp, BoundActionRunsOnSignal) {
  const std::string dir = ecluse::test::fresh_dir("signal");
  Init init(config(dir, "", "FilePerCore"));
  expect_ok(init.status);
  expect_ok(ecluse_bind("ping", count_call));
  expect_ok(ecluse_end_iteration());
  expect_ok(ecluse_signal("ping"));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(last_iteration, 1);
}

TEST(ApiTp, EveryRankGetsTheSameConfigError) {
  testing::internal::CaptureStderr();
  const int status = ecluse_initialize("/nonexistent/ecluse.xml", MPI_COMM_WORLD);
  const std::string told = testing::internal::GetCapturedStderr();
  // Said once, by the first rank, even to a program that ignores the status.
  EXPECT_EQ(told, world_rank() == 0
                      ? "ecluse: initialize failed (ECLUSE_CONFIG_ERROR): cannot read "
                        "configuration file '/nonexistent/ecluse.xml': No such file or "
                        "directory; check the path given to ecluse_initialize.\n"
                      : "");
  int low = 0, high = 0;
  MPI_Allreduce(&status, &low, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&status, &high, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(low, ECLUSE_CONFIG_ERROR);
  EXPECT_EQ(high, ECLUSE_CONFIG_ERROR);
  EXPECT_STREQ(ecluse_error_message(),
               "cannot read configuration file '/nonexistent/ecluse.xml': No such file or "
               "directory; check the path given to ecluse_initialize.");
}

// A rank whose text differs (here: the last, with one that does not parse) would fail alone
// while the others wait in initialize's first collective; every rank gets the error instead.
TEST(ApiTp, RanksThatPassDifferentTextsGetTheSameError) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size == 1) GTEST_SKIP() << "needs two ranks";
  const std::string good = R"(<simulation name="s" xmlns="urn:ecluse:config:1"/>)";
  const std::string text = world_rank() == size - 1 ? "<simulation name=\"s\">" : good;
  testing::internal::CaptureStderr();
  const int status = ecluse_initialize_string(text.c_str(), MPI_COMM_WORLD);
  testing::internal::GetCapturedStderr();
  int low = 0, high = 0;
  MPI_Allreduce(&status, &low, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&status, &high, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(low, ECLUSE_CONFIG_ERROR);
  EXPECT_EQ(high, ECLUSE_CONFIG_ERROR);
  EXPECT_EQ(std::string(ecluse_error_message()),
            "rank " + std::to_string(size - 1) +
                " passed a configuration text that differs from rank 0's; initialize needs the "
                "same text on every rank. Fix: pass the same string everywhere (read the file "
                "on one rank and broadcast it), or pass the file's path to ecluse_initialize");
}

TEST(ApiTp, NonTimeVaryingVariablesAreWrittenOnce) {
  const std::string dir = ecluse::test::fresh_dir("once");
  Init init(config(dir, R"(<layout name="l" type="int" dimensions="3"/>
      <variable name="mesh" layout="l" time-varying="false"/><variable name="t" layout="l"/>)",
                   "FilePerCore"));
  expect_ok(init.status);
  std::vector<int> values{7, 8, 9};
  for (int it = 0; it < 2; ++it) {
    expect_ok(ecluse_write("mesh", values.data()));
    expect_ok(ecluse_write("t", values.data()));
    expect_ok(ecluse_end_iteration());
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const int rank = world_rank();
  const std::string p = "/P" + std::to_string(rank);
  EXPECT_TRUE(ecluse::test::dataset_exists(file_per_process(dir, 0, rank), "mesh" + p));
  EXPECT_FALSE(ecluse::test::dataset_exists(file_per_process(dir, 1, rank), "mesh" + p));
  EXPECT_TRUE(ecluse::test::dataset_exists(file_per_process(dir, 1, rank), "t" + p));
}

// Each block of a constant variable is its own: block 1 first written at iteration 1 is stored
// there (it was dropped, block 0 having marked the whole variable written).
TEST(ApiTp, EachBlockOfANonTimeVaryingVariableIsWrittenOnce) {
  const std::string dir = ecluse::test::fresh_dir("once_blocks");
  Init init(config(dir, R"(<layout name="l" type="int" dimensions="3"/>
      <variable name="k" layout="l" time-varying="false"/>)",
                   "FilePerCore", 2));
  expect_ok(init.status);
  const std::vector<int> zero{1, 2, 3}, one{4, 5, 6};
  expect_ok(ecluse_write_block("k", 0, zero.data()));
  expect_ok(ecluse_end_iteration());
  expect_ok(ecluse_write_block("k", 1, one.data()));
  expect_ok(ecluse_write_block("k", 0, one.data()));  // block 0 again: dropped
  expect_ok(ecluse_end_iteration());
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string p = "k/P" + std::to_string(world_rank());
  EXPECT_EQ(read_dataset(file_per_process(dir, 0, world_rank()), p + "/B0").bytes, as_bytes(zero));
  EXPECT_EQ(read_dataset(file_per_process(dir, 1, world_rank()), p + "/B1").bytes, as_bytes(one));
  EXPECT_FALSE(ecluse::test::dataset_exists(file_per_process(dir, 1, world_rank()), p + "/B0"));
}

TEST(ApiTp, TheSameBlockTwiceInOneIterationIsRefusedAndTheFirstIsKept) {
  const std::string dir = ecluse::test::fresh_dir("twice");
  Init init(config(dir, R"(<layout name="l" type="int" dimensions="3"/>
      <variable name="t" layout="l"/>)",
                   "FilePerCore"));
  expect_ok(init.status);
  const std::vector<int> first{1, 2, 3}, second{4, 5, 6};
  expect_ok(ecluse_write("t", first.data()));
  EXPECT_EQ(ecluse_write("t", second.data()), ECLUSE_ALREADY_WRITTEN);
  EXPECT_STREQ(ecluse_error_message(),
               "block 0 of variable 't' was already written in iteration 0; call "
               "ecluse_end_iteration between two writes of the same block.");
  void* room = nullptr;
  EXPECT_EQ(ecluse_alloc("t", &room), ECLUSE_ALREADY_WRITTEN);
  double refused = -1;  // their data goes nowhere: the run's report counts them
  expect_ok(ecluse_get_statistic("client.refused_writes", &refused));
  EXPECT_EQ(refused, 2.0);
  expect_ok(ecluse_end_iteration());
  expect_ok(ecluse_write("t", second.data()));
  expect_ok(ecluse_end_iteration());
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string p = "t/P" + std::to_string(world_rank());
  EXPECT_EQ(read_dataset(file_per_process(dir, 0, world_rank()), p).bytes, as_bytes(first));
  EXPECT_EQ(read_dataset(file_per_process(dir, 1, world_rank()), p).bytes, as_bytes(second));
}

TEST(ApiTp, FullDiskFailsTheIterationKeepsEarlierFilesAndTheRunGoesOn) {
  const std::string dir = ecluse::test::fresh_dir("full");
  Init init(config(dir, R"(<layout name="l" type="double" dimensions="100000"/>
      <variable name="big" layout="l"/>)",
                   "FilePerCore"));
  expect_ok(init.status);
  std::vector<double> values(100000, 3.5);
  expect_ok(ecluse_write("big", values.data()));
  expect_ok(ecluse_end_iteration());
  std::signal(SIGXFSZ, SIG_IGN);
  rlimit saved{};
  getrlimit(RLIMIT_FSIZE, &saved);
  rlimit small = saved;
  small.rlim_cur = 64 * 1024;  // smaller than one iteration's file: the "disk" is full
  setrlimit(RLIMIT_FSIZE, &small);
  expect_ok(ecluse_write("big", values.data()));
  EXPECT_EQ(ecluse_end_iteration(), ECLUSE_IO_ERROR);
  setrlimit(RLIMIT_FSIZE, &saved);
  const int rank = world_rank();
  EXPECT_FALSE(std::filesystem::exists(file_per_process(dir, 1, rank)));
  EXPECT_FALSE(std::filesystem::exists(file_per_process(dir, 1, rank) + ".part"));
  EXPECT_EQ(read_dataset(file_per_process(dir, 0, rank), "big/P" + std::to_string(rank)).bytes,
            as_bytes(values));
  expect_ok(ecluse_write("big", values.data()));
  expect_ok(ecluse_end_iteration());
  EXPECT_EQ(read_dataset(file_per_process(dir, 2, rank), "big/P" + std::to_string(rank)).bytes,
            as_bytes(values));
}

}  // namespace
