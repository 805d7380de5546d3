// The dedicated nodes' message memory: small buffers from new[], large ones mapped on their own,
// 2 MiB-aligned, advised for huge pages, exactly their page-rounded capacity mapped; reuse and
// the bound on retained memory of the pool.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "dn/BufferPool.hpp"

namespace ecluse {
namespace {

struct Mapping {
  std::uintptr_t start = 0;
  std::uintptr_t end = 0;
  std::string flags;  // VmFlags of /proc/self/smaps
};

// The mapping of /proc/self/smaps that holds `address`.
Mapping mapping_of(const void* address) {
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  Mapping found;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t start = 0;
    std::uintptr_t end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> start >> dash >> end && dash == '-' && line.find(':') > 20) {
      inside = start <= a && a < end;
      if (inside) found = {start, end, ""};
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      found.flags = line.substr(8);
    }
  }
  return found;
}

// ECLUSE_HUGE_PAGES for one test.
class HugePages {
 public:
  explicit HugePages(const char* value) { ::setenv("ECLUSE_HUGE_PAGES", value, 1); }
  ~HugePages() { ::unsetenv("ECLUSE_HUGE_PAGES"); }
  HugePages(const HugePages&) = delete;
  HugePages& operator=(const HugePages&) = delete;
};

void fill_and_check(char* data, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; i += 4093) data[i] = static_cast<char>(i * 7);
  data[bytes - 1] = 'z';
  for (std::size_t i = 0; i < bytes; i += 4093) ASSERT_EQ(data[i], static_cast<char>(i * 7)) << i;
  ASSERT_EQ(data[bytes - 1], 'z');
}

TEST(BufferPool, SmallBuffersHaveTheirExactSize) {
  BufferPool pool(1 << 20);
  BufferPool::Buffer b = pool.acquire(1000);
  ASSERT_TRUE(b);
  EXPECT_EQ(b.capacity, 1000u);
  fill_and_check(b.data.get(), b.capacity);
  EXPECT_EQ(pool.acquire(0).capacity, 1u);
}

TEST(BufferPool, LargeBuffersHaveNormalPagesByDefault) {
  for (const char* value : {"", "0", "yes"}) {
    const HugePages setting(value);
    BufferPool pool(0);
    const std::size_t bytes = kHugePageBytes * 3 + 5;
    BufferPool::Buffer b = pool.acquire(bytes);
    EXPECT_EQ(b.capacity, bytes) << value;  // new[]: exactly what was asked
    fill_and_check(b.data.get(), b.capacity);
    EXPECT_EQ(mapping_of(b.data.get()).flags.find(" hg"), std::string::npos) << value;
  }
}

TEST(BufferPool, LargeBuffersAreAlignedPageRoundedMappingsAdvisedForHugePagesOnRequest) {
  const HugePages setting("1");
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t bytes = kHugePageBytes * 3 + 5;
  BufferPool pool(0);
  BufferPool::Buffer b = pool.acquire(bytes);
  ASSERT_TRUE(b);
  EXPECT_EQ(b.capacity, (bytes + page - 1) / page * page);
  const auto start = reinterpret_cast<std::uintptr_t>(b.data.get());
  EXPECT_EQ(start % kHugePageBytes, 0u);
  fill_and_check(b.data.get(), b.capacity);
  const Mapping m = mapping_of(b.data.get());
  // The head before the boundary and the tail after the capacity were unmapped again.
  EXPECT_EQ(m.start, start);
  EXPECT_EQ(m.end, start + b.capacity);
  if (std::filesystem::exists("/sys/kernel/mm/transparent_hugepage")) {
    EXPECT_NE(m.flags.find(" hg"), std::string::npos) << "VmFlags:" << m.flags;
  }
  pool.release(std::move(b));  // retained 0: unmapped
  EXPECT_EQ(pool.free_bytes(), 0u);
  EXPECT_NE(mapping_of(reinterpret_cast<void*>(start)).start, start);
}

TEST(BufferPool, ReusesAFreeBufferOfAtMostTwiceTheSize) {
  BufferPool pool(64u << 20);
  BufferPool::Buffer big = pool.acquire(8u << 20);
  char* const address = big.data.get();
  pool.release(std::move(big));
  EXPECT_EQ(pool.free_bytes(), 8u << 20);
  BufferPool::Buffer again = pool.acquire(5u << 20);
  EXPECT_EQ(again.data.get(), address);
  EXPECT_EQ(again.capacity, 8u << 20);
  EXPECT_EQ(pool.free_bytes(), 0u);
  BufferPool::Buffer small = pool.acquire(1u << 20);  // 8 MiB is more than twice 1 MiB
  EXPECT_NE(small.data.get(), address);
  pool.release(std::move(again));
  pool.release(std::move(small));
  EXPECT_EQ(pool.free_bytes(), (8u << 20) + (1u << 20));
}

TEST(BufferPool, RetainsAtMostItsBoundDroppingTheLargestFirst) {
  BufferPool pool(10u << 20);
  BufferPool::Buffer a = pool.acquire(4u << 20);
  BufferPool::Buffer b = pool.acquire(4u << 20);
  BufferPool::Buffer c = pool.acquire(3u << 20);
  pool.release(std::move(a));
  pool.release(std::move(b));
  EXPECT_EQ(pool.free_bytes(), 8u << 20);
  pool.release(std::move(c));  // 11 MiB > 10: one 4 MiB buffer goes
  EXPECT_EQ(pool.free_bytes(), 7u << 20);
  pool.release(pool.acquire(16u << 20));  // larger than the bound: not kept, nor evicting
  EXPECT_EQ(pool.free_bytes(), 7u << 20);
}

// Pages of [data, data + bytes) not resident (mincore), whole pages inside only.
std::size_t pages_not_resident(const char* data, std::size_t bytes) {
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto start = (reinterpret_cast<std::uintptr_t>(data) + page - 1) / page * page;
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) / page * page;
  std::vector<unsigned char> resident((end - start) / page);
  EXPECT_EQ(::mincore(reinterpret_cast<void*>(start), end - start, resident.data()), 0);
  return static_cast<std::size_t>(
      std::count_if(resident.begin(), resident.end(), [](unsigned char r) { return !(r & 1); }));
}

TEST(BufferPool, PrefillKeepsWholeRoundsOfMappedBuffersWithinTheBound) {
  BufferPool pool(64u << 20);
  // 100 bytes is too small to prefill; rounds of 1 + 2 MiB: two whole, then 1 MiB fits.
  pool.prefill({1u << 20, 100, 2u << 20}, 7u << 20, "test memory");
  EXPECT_EQ(pool.free_bytes(), 7u << 20);
  BufferPool::Buffer b = pool.acquire(2u << 20);
  EXPECT_EQ(b.capacity, 2u << 20);
  EXPECT_EQ(pool.free_bytes(), 5u << 20);
  EXPECT_EQ(pages_not_resident(b.data.get(), b.capacity), 0u);
}

TEST(BufferPool, PrefillStopsAtEightRoundsAndAtThePoolsBound) {
  BufferPool many(1u << 30);
  many.prefill({64u << 10}, 1u << 30, "test memory");
  EXPECT_EQ(many.free_bytes(), 8u * (64u << 10));
  BufferPool small(2u << 20);
  small.prefill({1u << 20}, 10u << 20, "test memory");
  EXPECT_EQ(small.free_bytes(), 2u << 20);
  BufferPool none(16u << 20);
  none.prefill({}, 16u << 20, "test memory");
  none.prefill({32u << 20}, 16u << 20, "test memory");  // larger than the bound
  EXPECT_EQ(none.free_bytes(), 0u);
}

}  // namespace
}  // namespace ecluse
