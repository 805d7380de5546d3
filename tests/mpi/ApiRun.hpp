// The run the MPI API tests share: initialize, start, the clients' iterations, stop (run_clients);
// the configuration and the blocks of the DC and DN tests (api_config, write_api_iteration,
// check_api_iteration); a small "disk" for the store-failure tests (FileSizeLimit).
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/resource.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "BlockValues.hpp"
#include "TestSupport.hpp"
#include "ecluse/ecluse.h"

namespace ecluse::test {

/** What a client rank saw of a run: whether it was a client, and the number of clients (0 on
 * servers; max_over_world gives every rank the count). */
struct Started {
  bool is_client = false;
  int clients = 0;
};

/** Initializes Ecluse with `xml` and starts it; a client then runs `iterations` iterations of
 * write(it, source), each ended by ecluse_end_iteration (the last one too unless `end_last` is
 * false: an iteration the simulation "forgot" to end), and stops. The caller finalizes. */
template <class Write>
Started run_clients(const std::string& xml, int iterations, Write&& write, bool end_last = true) {
  Started started;
  expect_ok(ecluse_initialize_string(xml.c_str(), MPI_COMM_WORLD));
  int is_client = 0;
  expect_ok(ecluse_start(&is_client));
  started.is_client = is_client != 0;
  if (!started.is_client) return started;
  MPI_Comm comm;
  expect_ok(ecluse_client_comm_get(&comm));
  int source = 0;
  MPI_Comm_rank(comm, &source);
  MPI_Comm_size(comm, &started.clients);
  for (int it = 0; it < iterations; ++it) {
    write(it, source);
    if (it + 1 < iterations || end_last) expect_ok(ecluse_end_iteration());
  }
  expect_ok(ecluse_stop());
  return started;
}

inline int max_over_world(int value) {
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return value;
}

/** The DC and DN tests' run: ranks per virtual node, dedicated cores per node or dedicated nodes
 * (both 0: time partitioning), the buffer and one HDF5 store. */
struct ApiSetup {
  int ranks_per_node = 2;
  int cores = 1;  // dedicated cores per node
  int nodes = 0;  // dedicated nodes
  std::string buffer = "16MiB";
  std::string allocator = "";  // <buffer allocator>; empty: the default
  std::string policy = "block";
  std::string mode = "FilePerCore";
  int domains = 2;
  int queue = 0;          // <queue size>; 0: the default
  std::string copy = "";  // <buffer copy>; empty: the default
};

/** Variables 'field' (doubles, N+2 x 5 with a ghost row each side, N = 6) and 'grp/fort' (ints,
 * 3 x N in Fortran order), `domains` blocks per client; output files `<simulation>_It...` in
 * `dir`, the log in `dir`/log. */
inline std::string api_config(const std::string& simulation, const std::string& dir,
                              const ApiSetup& s) {
  auto attribute = [](const char* name, const std::string& value) {
    return value.empty() ? std::string() : " " + std::string(name) + "=\"" + value + "\"";
  };
  return "<simulation name=\"" + simulation + R"(" xmlns="urn:ecluse:config:1"><architecture>
    <domains count=")" +
         std::to_string(s.domains) + R"("/>
    <dedicated cores=")" +
         std::to_string(s.cores) + R"(" nodes=")" + std::to_string(s.nodes) + R"("/>
    <buffer size=")" +
         s.buffer + "\"" + attribute("allocator", s.allocator) + attribute("policy", s.policy) +
         attribute("copy", s.copy) + "/>" +
         (s.queue > 0 ? "<queue size=\"" + std::to_string(s.queue) + "\"/>" : "") +
         R"(<virtual-nodes ranks-per-node=")" + std::to_string(s.ranks_per_node) + R"("/>
    </architecture><data>
    <parameter name="N" type="int" value="6"/>
    <layout name="g" type="double" dimensions="N+2,5" ghosts="1:1,0:0"/>
    <layout name="f" type="int" dimensions="3,N" language="fortran"/>
    <variable name="field" layout="g" unit="K"/>
    <group name="grp"><variable name="fort" layout="f"/></group>
    </data><storage><store name="s" type="HDF5"><option key="FileMode">)" +
         s.mode + R"(</option><option key="FilesPath">)" + dir +
         R"(</option></store></storage><log LogLevel="warning" FileName=")" + dir +
         R"(/log"/></simulation>)";
}

/** One client's blocks of iteration `it`: 'field' written (copied), 'grp/fort' allocated in the
 * buffer and committed (zero copy), each block at its position. */
inline void write_api_iteration(int it, int source, int domains) {
  for (int b = 0; b < domains; ++b) {
    const std::int64_t pos[2] = {source * 6, b * 5};
    expect_ok(ecluse_set_block_position("field", b, pos));
    expect_ok(ecluse_write_block("field", b, field_values(it, source, b).data()));
    const std::int64_t fort_pos[2] = {b * 3, source * 6};  // Fortran order
    expect_ok(ecluse_set_block_position("grp/fort", b, fort_pos));
    void* room = nullptr;
    expect_ok(ecluse_alloc_block("grp/fort", b, &room));
    const auto f = fort_values(it, source, b);
    std::memcpy(room, f.data(), f.size() * sizeof(int));
    expect_ok(ecluse_commit_block("grp/fort", b));
  }
}

/** Every (source, block) of iteration `it` found exactly once in `files` (FilePerCore or
 * FilePerNode datasets), bit for bit. */
inline void check_api_iteration(const std::vector<std::string>& files, int it, int clients,
                                int domains) {
  std::set<std::pair<int, int>> seen;
  for (const std::string& file : files) {
    for (int src = 0; src < clients; ++src) {
      for (int b = 0; b < domains; ++b) {
        const std::string p = "/P" + std::to_string(src) + "/B" + std::to_string(b);
        if (!dataset_exists(file, "field" + p)) continue;
        EXPECT_TRUE(seen.insert({src, b}).second) << "block stored twice";
        EXPECT_EQ(read_dataset(file, "field" + p).bytes, as_bytes(field_interior(it, src, b)));
        const auto f = read_dataset(file, "grp/fort" + p);
        EXPECT_EQ(f.dims, (std::vector<std::uint64_t>{6, 3}));
        EXPECT_EQ(f.bytes, as_bytes(fort_values(it, src, b)));
      }
    }
  }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(clients * domains)) << "iteration " << it;
}

/** The "disk" of this process takes files of at most `bytes` while this lives (RLIMIT_FSIZE,
 * SIGXFSZ ignored so that a write beyond it fails with EFBIG instead of killing the process). */
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    std::signal(SIGXFSZ, SIG_IGN);
    getrlimit(RLIMIT_FSIZE, &saved_);
    rlimit small = saved_;
    small.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &small);
  }
  ~FileSizeLimit() { setrlimit(RLIMIT_FSIZE, &saved_); }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit saved_{};
};

/** The store-failure tests' write: 'field' of N = 6 rows, except at iteration 2, where N = 20000
 * (800 KB, more than a FileSizeLimit of 256 KiB lets the store write). */
inline void write_too_big_at_iteration_2(int it) {
  const int n = it == 2 ? 20000 : 6;
  expect_ok(ecluse_parameter_set("N", &n, sizeof n));
  std::vector<double> values(static_cast<std::size_t>((n + 2) * 5), it);
  expect_ok(ecluse_write("field", values.data()));
}

/** The skip-policy tests (one client, one block per iteration): each of `iterations` iterations
 * has client 0's 'field' block in `dir`/<simulation>_It<it>_Pr0.h5, bit for bit, or was
 * skipped; some are stored. The log says the first 10 skips, then the 16th, 32nd... (`skipped`,
 * with the iteration after it). */
inline void check_stored_or_skipped(const std::string& dir, const std::string& simulation,
                                    int iterations, const std::string& skipped) {
  int stored = 0;
  for (int it = 0; it < iterations; ++it) {
    const std::string file = dir + "/" + simulation + "_It" + std::to_string(it) + "_Pr0.h5";
    if (!std::filesystem::exists(file) || !dataset_exists(file, "field/P0")) continue;
    EXPECT_EQ(read_dataset(file, "field/P0").bytes, as_bytes(field_interior(it, 0, 0)));
    ++stored;
  }
  EXPECT_GT(stored, 0);
  const std::string log = read_text(dir + "/log.0.log");
  const auto lines = std::count(log.begin(), log.end(), '\n');
  const int skips = iterations - stored;
  int said = std::min(skips, 10);
  for (int power = 16; power <= skips; power *= 2) ++said;
  EXPECT_EQ(static_cast<int>(lines), said) << log;
  if (stored < iterations) {
    EXPECT_NE(log.find(skipped), std::string::npos) << log;
  }
}

/** The oversized-block tests: initializes with `xml` with N lowered to 1 (its blocks fit at
 * initialize) and starts; a client then sets N = 6, whose 'field' block does not fit, gets
 * ECLUSE_ALLOCATION_ERROR from ecluse_write, clears an allocated block and stops. Returns the
 * write's error message on a client, nothing on a server. The caller finalizes. */
inline std::optional<std::string> write_a_block_grown_too_big(std::string xml) {
  xml.replace(xml.find("value=\"6\""), 9, "value=\"1\"");
  expect_ok(ecluse_initialize_string(xml.c_str(), MPI_COMM_WORLD));
  int is_client = 0;
  expect_ok(ecluse_start(&is_client));
  if (!is_client) return std::nullopt;
  const int n = 6;
  expect_ok(ecluse_parameter_set("N", &n, sizeof n));
  EXPECT_EQ(ecluse_write("field", field_values(0, 0, 0).data()), ECLUSE_ALLOCATION_ERROR);
  std::string message = ecluse_error_message();
  clear_block_then_stop();
  return message;
}

}  // namespace ecluse::test
