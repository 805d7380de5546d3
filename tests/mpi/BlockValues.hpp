// The data the DC and DN API tests write and read back: a ghosted 2-D double field (8x5, one
// ghost row each side) and a Fortran int block (3x6), known from iteration, source and block.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <sys/resource.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "ecluse/ecluse.h"

namespace ecluse::test {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline int world_size() {
  int s = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

inline void expect_ok(int status) {
  ASSERT_EQ(status, ECLUSE_OK) << ecluse_error_message();
}

inline std::vector<double> field_values(int it, int source, int block) {
  std::vector<double> v(8 * 5);
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = it * 1e6 + source * 1e4 + block * 1e3 + double(i);
  return v;
}

/** The field without its ghost rows, as stored. */
inline std::vector<double> field_interior(int it, int source, int block) {
  auto v = field_values(it, source, block);
  return {v.begin() + 5, v.end() - 5};
}

inline std::vector<int> fort_values(int it, int source, int block) {
  std::vector<int> v(18);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = it * 10000 + source * 100 + block * 50 + int(i);
  return v;
}

/** A cleared zero-copy block is gone (commit finds nothing); the client then ends its
 * iteration and stops normally. */
inline void clear_block_then_stop() {
  void* room = nullptr;
  expect_ok(ecluse_alloc("grp/fort", &room));
  expect_ok(ecluse_clear("grp/fort"));
  EXPECT_EQ(ecluse_commit("grp/fort"), ECLUSE_BLOCK_NOT_FOUND);
  expect_ok(ecluse_end_iteration());
  expect_ok(ecluse_stop());
}

/** Wall and CPU seconds a server spent in ecluse_start while its clients computed (slept) for
 * `sleep`; clients get {0, 0}. Initializes and finalizes Ecluse with `xml`. */
struct IdleServer {
  double wall = 0, cpu = 0;
};

inline double cpu_seconds_now() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) * 1e-6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

inline IdleServer measure_idle_server(const std::string& xml, std::chrono::milliseconds sleep) {
  expect_ok(ecluse_initialize_string(xml.c_str(), MPI_COMM_WORLD));
  IdleServer idle;
  int is_client = 0;
  const double cpu = cpu_seconds_now();
  const auto start = std::chrono::steady_clock::now();
  expect_ok(ecluse_start(&is_client));
  if (is_client) {
    std::this_thread::sleep_for(sleep);  // a long compute phase
    expect_ok(ecluse_stop());
  } else {
    idle.cpu = cpu_seconds_now() - cpu;
    idle.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  expect_ok(ecluse_finalize());
  return idle;
}

}  // namespace ecluse::test
