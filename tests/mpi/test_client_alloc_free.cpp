// The client's path under dedicated cores allocates nothing on the heap in steady state: after a
// warm-up, many iterations of ecluse_write_block, ecluse_write_block_strided, ecluse_alloc_block +
// ecluse_commit_block and ecluse_end_iteration are counted by a replaced global operator new and
// (glibc) malloc, on the calling thread only (MPI's progress threads may allocate as they like).
// Time partitioning is not covered: its end_iteration runs the stores in the client, which
// allocate.
#include <gtest/gtest.h>
#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "TestSupport.hpp"
#include "ecluse/ecluse.h"

namespace {

std::atomic<std::uint64_t> g_news{0};
std::atomic<std::uint64_t> g_mallocs{0};
thread_local bool t_counting = false;

void* counted_new(std::size_t bytes) {
  if (t_counting) g_news.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) return p;
  throw std::bad_alloc();
}

}  // namespace

void* operator new(std::size_t bytes) {
  return counted_new(bytes);
}
void* operator new[](std::size_t bytes) {
  return counted_new(bytes);
}
void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
  if (t_counting) g_news.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(bytes == 0 ? 1 : bytes);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}

// malloc itself (C code, and operator new above) on glibc, which exports its own entry points;
// not under a sanitizer, which replaces malloc itself.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define ECLUSE_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define ECLUSE_TEST_SANITIZED 1
#endif
#if defined(__GLIBC__) && !defined(ECLUSE_TEST_SANITIZED)
#define ECLUSE_TEST_COUNTS_MALLOC 1
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* malloc(std::size_t bytes) {
  if (t_counting) g_mallocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(bytes);
}
void* calloc(std::size_t n, std::size_t bytes) {
  if (t_counting) g_mallocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(n, bytes);
}
void* realloc(void* p, std::size_t bytes) {
  if (t_counting) g_mallocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(p, bytes);
}
}
#endif

namespace {

// Inside the counted loop a failure is only remembered (gtest's messages allocate); checked
// after it.
int g_failed_status = ECLUSE_OK;
void ok(int status) {
  if (status != ECLUSE_OK && g_failed_status == ECLUSE_OK) g_failed_status = status;
}

void expect_ok(int status) {
  EXPECT_EQ(status, ECLUSE_OK) << ecluse_status_name(status) << ": " << ecluse_error_message();
}

constexpr int kDomains = 4;
constexpr int kWarmUp = 8;
constexpr int kCounted = 300;
constexpr std::size_t kElements = 64 * 128;  // one block: 64 KiB of doubles

std::string config(int dedicated_cores) {
  std::string xml = R"(<simulation name="allocfree" xmlns="urn:ecluse:config:1"><architecture>
    <domains count=")" +
                    std::to_string(kDomains) + R"("/><dedicated cores=")" +
                    std::to_string(dedicated_cores) + R"(" nodes="0"/>)";
  if (dedicated_cores > 0) {
    xml += R"(<buffer size="16MiB"/><virtual-nodes ranks-per-node="2"/>)";
  }
  return xml + R"(</architecture><data>
    <layout name="g" type="double" dimensions="64,128" ghosts="1:1,0:0"/>
    <variable name="copied" layout="g"/>
    <variable name="zero_copy" layout="g"/>
    <variable name="strided" layout="g"/>
    <variable name="constant" layout="g" time-varying="false"/>
    </data><storage><store name="s" type="null"/></storage>
    <log LogLevel="warning" FileName="allocfree-log"/></simulation>)";
}

/** One iteration of every client call the path has, the block values depending on it. */
void iteration(std::vector<double>& data, int it) {
  for (int b = 0; b < kDomains; ++b) {
    data[0] = it * 10 + b;
    ok(ecluse_write_block("copied", b, data.data()));
    ok(ecluse_write_block("constant", b, data.data()));
    const std::int64_t extents[1] = {static_cast<std::int64_t>(kElements)},
                       backwards[1] = {-8};  // read in reverse
    ok(ecluse_write_block_strided("strided", b, &data[kElements - 1], 1, extents, backwards));
    void* room = nullptr;
    ok(ecluse_alloc_block("zero_copy", b, &room));
    std::memcpy(room, data.data(), kElements * sizeof(double));
    ok(ecluse_commit_block("zero_copy", b));
  }
  ok(ecluse_end_iteration());
}

struct Counts {
  std::uint64_t news = 0, mallocs = 0;
};

/** Runs the warm-up, then the counted iterations; returns what they allocated. */
Counts run_client() {
  std::vector<double> data(kElements, 1.5);
  const std::int64_t position[2] = {0, 0};
  for (int b = 0; b < kDomains; ++b) {
    expect_ok(ecluse_set_block_position("copied", b, position));
  }
  for (int it = 0; it < kWarmUp; ++it) iteration(data, it);
  const std::uint64_t news = g_news.load(), mallocs = g_mallocs.load();
  t_counting = true;
  for (int it = kWarmUp; it < kWarmUp + kCounted; ++it) iteration(data, it);
  t_counting = false;
  return {g_news.load() - news, g_mallocs.load() - mallocs};
}

void expect_no_allocation(int dedicated_cores) {
  expect_ok(ecluse_initialize_string(config(dedicated_cores).c_str(), MPI_COMM_WORLD));
  int is_client = 0;
  expect_ok(ecluse_start(&is_client));
  if (is_client) {
    const Counts counts = run_client();
    EXPECT_EQ(g_failed_status, ECLUSE_OK)
        << ecluse_status_name(g_failed_status) << ": " << ecluse_error_message();
    EXPECT_EQ(counts.news, 0u) << "operator new calls in " << kCounted << " iterations";
#ifdef ECLUSE_TEST_COUNTS_MALLOC
    EXPECT_EQ(counts.mallocs, 0u) << "malloc/calloc/realloc calls in " << kCounted << " iterations";
#endif
    if (dedicated_cores > 0) {
      // Every block of every iteration was handed over: 3 time-varying variables, and the
      // constant one in the first iteration only.
      double sent = 0;
      expect_ok(ecluse_get_statistic("dc.sent_blocks", &sent));
      EXPECT_EQ(sent, static_cast<double>((kWarmUp + kCounted) * kDomains * 3 + kDomains));
    }
    expect_ok(ecluse_stop());
  }
  expect_ok(ecluse_finalize());
}

TEST(ClientAllocFree, CountingSeesAnAllocation) {
  t_counting = true;
  auto* probe = new std::string(100, 'x');
  t_counting = false;
  delete probe;
  EXPECT_GE(g_news.load(), 1u);
#ifdef ECLUSE_TEST_COUNTS_MALLOC
  EXPECT_GE(g_mallocs.load(), 1u);
#endif
}

TEST(ClientAllocFree, DedicatedCoresSteadyStateAllocatesNothing) {
  expect_no_allocation(1);
}

}  // namespace
