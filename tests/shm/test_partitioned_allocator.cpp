// The partitioned allocator's ring semantics: space comes back only when the tail passes,
// whatever order the releases come in; blocks never straddle the end; clients never meet.
#include <algorithm>

#include "ShmTestSupport.hpp"
#include "ecluse/Error.hpp"
#include "shm/BufferAllocator.hpp"

namespace ecluse::shm {
namespace {

using test::footprint;

constexpr std::size_t kPart = 4096;
constexpr std::size_t kQuarter = kPart / 4 - 64;  // four of these fill a part exactly

class PartitionedTest : public test::ShmTest {
 protected:
  test::Buffer buffer_ = test::make_buffer("partitioned", 3, 3 * kPart);
  BufferAllocator& alloc_ = *buffer_.allocator;

  std::vector<Handle> fill(int client, std::size_t bytes) {
    std::vector<Handle> blocks;
    while (auto h = alloc_.allocate(client, bytes)) blocks.push_back(*h);
    return blocks;
  }
};

TEST_F(PartitionedTest, OutOfOrderReleasesWaitForTheOldestBlock) {
  const auto blocks = fill(1, kQuarter);
  ASSERT_EQ(blocks.size(), 4u);
  alloc_.release(blocks[2]);
  alloc_.release(blocks[1]);
  alloc_.release(blocks[3]);
  EXPECT_EQ(alloc_.used(), footprint(kQuarter));  // counted as free at once...
  EXPECT_FALSE(alloc_.allocate(1, 0));            // ...but the ring is FIFO: still full
  alloc_.release(blocks[0]);                      // the tail now passes all four
  EXPECT_EQ(alloc_.used(), 0u);
  const auto again = fill(1, kQuarter);
  EXPECT_EQ(again, blocks);  // same places, in the same order
}

TEST_F(PartitionedTest, ABlockNeverStraddlesTheEndOfTheRing) {
  constexpr std::size_t kHalf = kPart / 2 - 64;
  const auto a = alloc_.allocate(0, kQuarter).value();
  const auto b = alloc_.allocate(0, kQuarter).value();
  const auto c = alloc_.allocate(0, kQuarter).value();  // the head is at 3/4 of the ring
  alloc_.release(a);
  // Half a ring does not fit in the last quarter: it must wait for the start, held by b.
  EXPECT_FALSE(alloc_.allocate(0, kHalf));
  alloc_.release(b);
  const auto wrapped = alloc_.allocate(0, kHalf);
  ASSERT_TRUE(wrapped);
  EXPECT_EQ(*wrapped, a) << "the block must start the ring again";
  EXPECT_EQ(alloc_.used(), footprint(kQuarter) + footprint(kHalf)) << "padding is not used";
  alloc_.release(c);  // the tail passes c and the padding, up to `wrapped`
  EXPECT_EQ(alloc_.allocate(0, kQuarter), c);
}

TEST_F(PartitionedTest, AnEmptyRingTakesTheLargestBlockWhereverItsHeadIs) {
  for (std::size_t step = 1; step < 8; ++step) {
    const auto h = alloc_.allocate(2, step * 200).value();  // moves the head around
    alloc_.release(h);
    const auto whole = alloc_.allocate(2, alloc_.capacity(2));
    ASSERT_TRUE(whole) << "step " << step;
    alloc_.release(*whole);
  }
  EXPECT_EQ(alloc_.capacity(2), kPart - 64);
}

// A server that keeps up empties the ring before the next write: the ring then starts again at
// its beginning, so each iteration reuses the same (cache- and TLB-warm) addresses.
TEST_F(PartitionedTest, AnEmptyRingStartsAgainAtItsBeginning) {
  const auto first = alloc_.allocate(1, kQuarter).value();
  alloc_.release(first);
  for (int iteration = 0; iteration < 6; ++iteration) {
    const auto a = alloc_.allocate(1, kQuarter).value();
    const auto b = alloc_.allocate(1, 100).value();
    EXPECT_EQ(a, first) << "iteration " << iteration;
    EXPECT_EQ(b, first + footprint(kQuarter)) << "iteration " << iteration;
    alloc_.release(a);
    // Not empty (b is held): the next block follows b, as in a FIFO ring.
    const auto c = alloc_.allocate(1, 100).value();
    EXPECT_EQ(c, b + footprint(100)) << "iteration " << iteration;
    alloc_.release(b);
    alloc_.release(c);
    EXPECT_EQ(alloc_.used(), 0u);
  }
}

TEST_F(PartitionedTest, ClientsNeverShareSpace) {
  const auto zero = fill(0, 100);
  EXPECT_EQ(zero.size(), kPart / footprint(100));
  for (int c = 1; c < 3; ++c) {
    const auto whole = alloc_.allocate(c, alloc_.capacity(c));
    ASSERT_TRUE(whole) << "client " << c << " suffers from client 0 being full";
    const auto [lo, hi] = std::minmax_element(zero.begin(), zero.end());
    const bool disjoint = *whole + alloc_.capacity(c) <= *lo - 64 || *whole - 64 >= *hi + 128;
    EXPECT_TRUE(disjoint) << "client " << c;
    alloc_.release(*whole);
  }
  for (const auto h : zero) {
    EXPECT_GE(h, zero.front());
    EXPECT_LT(h, zero.front() - 64 + kPart);
  }
}

}  // namespace
}  // namespace ecluse::shm
