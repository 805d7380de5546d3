// What the plugin tests share: the test plugin held open, the configuration, one run of four
// iterations, and the checks that every block was seen once and stored once.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <filesystem>
#include <string>

#include "BlockValues.hpp"
#include "TestSupport.hpp"
#include "ecluse/ecluse.h"

namespace ecluse::test::plugins {

namespace fs = std::filesystem;

constexpr int kIterations = 4;
constexpr int kDomains = 2;
constexpr int kSeen = 8 * 2 * 8 * 2;  // iterations x variables x sources x blocks in plugin.c

// The test plugin stays loaded between runs (this handle), so its counters outlive finalize.
struct TestPlugin {
  void* handle = dlopen(ECLUSE_TEST_PLUGIN, RTLD_NOW);
  template <typename F>
  F get(const char* name) const {
    return reinterpret_cast<F>(dlsym(handle, name));
  }
  void reset() const { get<void (*)()>("plugin_test_reset")(); }
  int counter(const char* name) const {
    return get<int (*)(const char*)>("plugin_test_counter")(name);
  }
  std::string first_error() const { return get<const char* (*)()>("plugin_test_first_error")(); }
  int seen(int it, int var, int src, int block) const {
    return get<int (*)(int, int, int, int)>("plugin_test_seen")(it, var, src, block);
  }
};

inline const TestPlugin& plugin() {
  static const TestPlugin p;
  return p;
}

inline int sum_over_world(int value) {
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return value;
}

inline std::string config(const std::string& dir, const std::string& architecture,
                          const std::string& events) {
  return R"(<simulation name="plug"><architecture><domains count="2"/>)" + architecture +
         R"(</architecture><data>
    <parameter name="N" type="int" value="6"/>
    <layout name="g" type="double" dimensions="N+2,5" ghosts="1:1,0:0"/>
    <layout name="f" type="int" dimensions="3,N" language="fortran"/>
    <variable name="field" layout="g"/>
    <group name="grp"><variable name="fort" layout="f"/></group>
    </data><storage><store name="s" type="HDF5"><option key="FileMode">FilePerCore</option>
    <option key="FilesPath">)" +
         dir + "</option></store></storage>\n<actions>" + events +
         R"(</actions><log LogLevel="warning" FileName=")" + dir + R"(/log"/></simulation>)";
}

inline std::string count_event() {
  return R"(<event name="count" action="count_blocks" library=")" ECLUSE_TEST_PLUGIN
         R"(" kind="iteration"/>)";
}

inline void write_iterations() {
  MPI_Comm comm;
  expect_ok(ecluse_client_comm_get(&comm));
  int source = 0;
  MPI_Comm_rank(comm, &source);
  for (int it = 0; it < kIterations; ++it) {
    for (int b = 0; b < kDomains; ++b) {
      const std::int64_t pos[2] = {source * 6, b * 5};
      expect_ok(ecluse_set_block_position("field", b, pos));
      expect_ok(ecluse_write_block("field", b, ecluse::test::field_values(it, source, b).data()));
      const std::int64_t fort_pos[2] = {b * 3, source * 6};  // Fortran order
      expect_ok(ecluse_set_block_position("grp/fort", b, fort_pos));
      expect_ok(ecluse_write_block("grp/fort", b, ecluse::test::fort_values(it, source, b).data()));
    }
    expect_ok(ecluse_end_iteration());
  }
  expect_ok(ecluse_stop());
}

/** One run; returns the number of clients. */
inline int run(const std::string& xml) {
  plugin().reset();
  expect_ok(ecluse_initialize_string(xml.c_str(), MPI_COMM_WORLD));
  int is_client = 0;
  expect_ok(ecluse_start(&is_client));
  if (is_client) write_iterations();
  expect_ok(ecluse_finalize());
  return sum_over_world(is_client);
}

/** Every (iteration, variable, source, block) seen exactly once over all writers. */
inline void expect_every_block_once(int clients, int writers) {
  std::array<int, kSeen> seen{};
  for (int it = 0; it < 8; ++it)
    for (int var = 0; var < 2; ++var)
      for (int src = 0; src < 8; ++src)
        for (int b = 0; b < 2; ++b)
          seen[((it * 2 + var) * 8 + src) * 2 + b] = plugin().seen(it, var, src, b);
  MPI_Allreduce(MPI_IN_PLACE, seen.data(), kSeen, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int it = 0; it < 8; ++it)
    for (int var = 0; var < 2; ++var)
      for (int src = 0; src < 8; ++src)
        for (int b = 0; b < 2; ++b) {
          const bool written = it < kIterations && src < clients && b < kDomains;
          EXPECT_EQ(seen[((it * 2 + var) * 8 + src) * 2 + b], written ? 1 : 0)
              << "iteration " << it << " variable " << var << " source " << src << " block " << b;
        }
  EXPECT_EQ(sum_over_world(plugin().counter("errors")), 0) << plugin().first_error();
  EXPECT_EQ(sum_over_world(plugin().counter("runs")), writers * kIterations);
  EXPECT_EQ(sum_over_world(plugin().counter("user_ok")), writers * kIterations);
  EXPECT_EQ(sum_over_world(plugin().counter("inits")), writers);
  EXPECT_EQ(sum_over_world(plugin().counter("finishes")), writers);
}

/** The stored files hold every (source, block) of every iteration once. */
inline void expect_files_complete(const std::string& dir, int clients, int writers) {
  if (world_rank() != 0) return;
  for (int it = 0; it < kIterations; ++it) {
    int blocks = 0;
    for (int w = 0; w < writers; ++w) {
      const std::string file =
          dir + "/plug_It" + std::to_string(it) + "_Pr" + std::to_string(w) + ".h5";
      if (!fs::exists(file)) continue;
      for (int src = 0; src < clients; ++src)
        for (int b = 0; b < kDomains; ++b) {
          const std::string p = "field/P" + std::to_string(src) + "/B" + std::to_string(b);
          if (!ecluse::test::dataset_exists(file, p)) continue;
          ++blocks;
          EXPECT_EQ(ecluse::test::read_dataset(file, p).bytes,
                    ecluse::test::as_bytes(ecluse::test::field_interior(it, src, b)));
        }
    }
    EXPECT_EQ(blocks, clients * kDomains) << "iteration " << it;
  }
}

}  // namespace ecluse::test::plugins
