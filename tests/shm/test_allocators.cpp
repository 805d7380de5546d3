// Both allocators against a model: random allocate/release sequences (no overlap, used() exact,
// everything given back at the end), alignment, layout sizes, full buffers and misuse.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>

#include "ShmTestSupport.hpp"
#include "ecluse/Error.hpp"
#include "shm/BufferAllocator.hpp"

namespace ecluse::shm {
namespace {

using test::footprint;

class AllocatorTest : public test::ShmTest, public ::testing::WithParamInterface<std::string> {
 protected:
  const std::string& kind() const { return GetParam(); }
  bool general() const { return kind() == "general"; }
};

struct Live {
  int client;
  std::size_t bytes;
  unsigned char pattern;
};

// Blocks in use, keyed by handle, with the [header, end of payload) interval of each.
class Model {
 public:
  std::uint64_t used = 0;
  std::map<Handle, Live> live;

  bool overlaps(Handle h, std::size_t bytes) const {
    const auto after = live.lower_bound(h);
    if (after != live.end() && after->first - 64 < h + footprint(bytes) - 64) return true;
    if (after == live.begin()) return false;
    const auto before = std::prev(after);
    return before->first + footprint(before->second.bytes) - 64 > h - 64;
  }
  // Largest hole between blocks in [begin, end): what a best-fit allocator must be able to use.
  std::uint64_t largest_hole(std::uint64_t begin, std::uint64_t end) const {
    std::uint64_t hole = 0;
    std::uint64_t at = begin;
    for (const auto& [h, block] : live) {
      hole = std::max(hole, h - 64 - at);
      at = h + footprint(block.bytes) - 64;
    }
    return std::max(hole, end - at);
  }
};

std::size_t random_size(std::mt19937& rng, std::size_t capacity) {
  const auto pick = rng() % 100;
  if (pick < 3) return 0;
  if (pick < 10) return rng() % (capacity / 4);
  return rng() % 3000;
}

TEST_P(AllocatorTest, RandomSequencesMatchAModel) {
  constexpr int kClients = 3;
  auto buffer = test::make_buffer(kind(), kClients, kClients * 64 * 1024, 128);
  auto& alloc = *buffer.allocator;
  const auto probe = alloc.allocate(0, 0).value();  // the first block sits at the area start
  alloc.release(probe);
  const auto area_begin = probe - 64;
  for (unsigned seed = 0; seed < 4; ++seed) {
    std::mt19937 rng(seed);
    Model model;
    for (int step = 0; step < 3000; ++step) {
      if (rng() % 100 < 45 && !model.live.empty()) {
        auto it = std::next(model.live.begin(), static_cast<long>(rng() % model.live.size()));
        const auto& [h, block] = *it;
        for (std::size_t k = 0; k < block.bytes; k += 61) {
          ASSERT_EQ(static_cast<unsigned char>(buffer.at(h)[k]), block.pattern) << "overwritten";
        }
        alloc.release(h);
        model.used -= footprint(block.bytes);
        model.live.erase(it);
      } else {
        const int client = static_cast<int>(rng() % kClients);
        const auto bytes = random_size(rng, alloc.capacity(client));
        const auto h = alloc.allocate(client, bytes);
        if (!h) {
          // Best fit with coalescing fails only if no hole of the model is big enough.
          if (general()) {
            ASSERT_LT(model.largest_hole(area_begin, area_begin + 64 + alloc.capacity(0)),
                      footprint(bytes));
          }
          continue;
        }
        ASSERT_EQ(reinterpret_cast<std::uintptr_t>(buffer.at(*h)) % 64, 0u);
        ASSERT_GE(*h, buffer.offset + 64);
        ASSERT_LE(*h + bytes, buffer.offset + buffer.size);
        ASSERT_FALSE(model.overlaps(*h, bytes)) << "block " << *h << " overlaps";
        const auto pattern = static_cast<unsigned char>(rng());
        std::memset(buffer.at(*h), pattern, bytes);
        model.live[*h] = Live{client, bytes, pattern};
        model.used += footprint(bytes);
      }
      ASSERT_EQ(alloc.used(), model.used) << "step " << step;
    }
    std::vector<Handle> rest;
    for (const auto& [h, block] : model.live) rest.push_back(h);
    std::shuffle(rest.begin(), rest.end(), rng);
    for (const auto h : rest) alloc.release(h);
    EXPECT_EQ(alloc.used(), 0u);
    for (int c = 0; c < kClients; ++c) {  // everything merged back: the largest block fits
      const auto whole = alloc.allocate(c, alloc.capacity(c));
      ASSERT_TRUE(whole) << "client " << c << " seed " << seed;
      alloc.release(*whole);
    }
  }
}

TEST_P(AllocatorTest, OverheadLaysOutExactlyTheRequestedData) {
  constexpr int kClients = 2;
  constexpr std::size_t kPart = 8192;
  for (const std::size_t lead : {0, 64, 100, 127, 4104}) {
    const std::size_t size = allocator_overhead(test::kind_of(kind()), kClients) + kClients * kPart;
    auto segment = SharedSegment::create(test::unique_name(std::to_string(lead)), lead + size);
    auto alloc = test::make_allocator(kind(), segment.base(), lead, size, kClients, true);
    const std::size_t expected = general() ? kClients * kPart - 64 : kPart - 64;
    EXPECT_EQ(alloc->capacity(1), expected) << "lead " << lead;
    const auto h = alloc->allocate(1, alloc->capacity(1));
    ASSERT_TRUE(h) << "lead " << lead;
    EXPECT_EQ((reinterpret_cast<std::uintptr_t>(segment.base()) + *h) % 64, 0u);
    EXPECT_LE(*h + alloc->capacity(1), lead + size);
    EXPECT_EQ(alloc->used(), footprint(alloc->capacity(1)));
  }
}

TEST_P(AllocatorTest, FullBufferGivesNulloptUntilARelease) {
  auto buffer = test::make_buffer(kind(), 1, 64 * 1024);
  auto& alloc = *buffer.allocator;
  std::vector<Handle> blocks;
  while (auto h = alloc.allocate(0, 1000)) blocks.push_back(*h);
  EXPECT_EQ(blocks.size(), 64 * 1024 / footprint(1000));
  EXPECT_FALSE(alloc.allocate(0, 1000));
  const auto before = alloc.release_counter().load();
  alloc.release(blocks.front());
  EXPECT_EQ(alloc.release_counter().load(), before + 1);
  EXPECT_TRUE(alloc.allocate(0, 1000));
}

TEST_P(AllocatorTest, MisuseIsReportedWithTheRightStatus) {
  auto buffer = test::make_buffer(kind(), 2, 2 * 4096);
  auto& alloc = *buffer.allocator;
  auto status_of = [](auto&& call) {
    try {
      call();
    } catch (const Error& e) {
      return e.status();
    }
    return ECLUSE_OK;
  };
  EXPECT_EQ(status_of([&] { alloc.allocate(0, alloc.capacity(0) + 1); }), ECLUSE_ALLOCATION_ERROR);
  const auto h = alloc.allocate(0, 100).value();
  alloc.release(h);
  EXPECT_EQ(status_of([&] { alloc.release(h); }), ECLUSE_ARGUMENT_ERROR);
  EXPECT_EQ(status_of([&] { alloc.release(h + 64); }), ECLUSE_ARGUMENT_ERROR);
  EXPECT_EQ(status_of([&] { alloc.release(3); }), ECLUSE_ARGUMENT_ERROR);
  EXPECT_EQ(status_of([&] { alloc.release(buffer.offset + buffer.size + 64); }),
            ECLUSE_ARGUMENT_ERROR);
  if (!general()) {
    EXPECT_EQ(status_of([&] { alloc.allocate(2, 10); }), ECLUSE_ARGUMENT_ERROR);
    EXPECT_EQ(status_of([&] { alloc.allocate(-1, 10); }), ECLUSE_ARGUMENT_ERROR);
  }
  EXPECT_EQ(alloc.used(), 0u);
}

TEST_P(AllocatorTest, AttachingSeesTheSameStateAndChecksTheLayout) {
  auto buffer = test::make_buffer(kind(), 2, 2 * 4096);
  const auto h = buffer.allocator->allocate(1, 300).value();
  void* base = buffer.segment.base();
  auto view = test::make_allocator(kind(), base, 0, buffer.size, 2, false);
  EXPECT_EQ(view->used(), footprint(300));
  view->release(h);
  EXPECT_EQ(buffer.allocator->used(), 0u);
  auto status_of = [&](std::size_t offset, std::size_t size) {
    try {
      test::make_allocator(kind(), base, offset, size, 2, false);
    } catch (const Error& e) {
      return e.status();
    }
    return ECLUSE_OK;
  };
  EXPECT_EQ(status_of(0, buffer.size - 2 * 4096 + 2 * 2048), ECLUSE_CHANNEL_ERROR);
  EXPECT_EQ(status_of(1024, buffer.size - 1024), ECLUSE_CHANNEL_ERROR);
  EXPECT_EQ(status_of(0, 100), ECLUSE_ALLOCATION_ERROR);
}

INSTANTIATE_TEST_SUITE_P(Kinds, AllocatorTest, ::testing::Values("general", "partitioned"));

// An unknown kind ("buddy") cannot reach the allocators any more: the kind is an AllocatorKind,
// and the configuration reader refuses any other name.
TEST(AllocatorOverhead, RejectsClientCounts) {
  EXPECT_GT(allocator_overhead(AllocatorKind::General, 1), 0u);
  EXPECT_GT(allocator_overhead(AllocatorKind::Partitioned, 4),
            allocator_overhead(AllocatorKind::Partitioned, 1));
  try {
    allocator_overhead(AllocatorKind::Partitioned, 0);
    FAIL() << "partitioned, 0 clients";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), ECLUSE_ARGUMENT_ERROR);
  }
}

class GeneralAllocatorTest : public test::ShmTest {};

// Releases in every order that leaves a free block on one side, the other, or both.
TEST_F(GeneralAllocatorTest, CoalescesNeighboursBackIntoOneBlock) {
  auto buffer = test::make_buffer("general", 1, 16 * 1024);
  auto& alloc = *buffer.allocator;
  const std::vector<std::vector<int>> orders = {
      {1, 3, 0, 2}, {0, 1, 2, 3}, {3, 2, 1, 0}, {0, 2, 1, 3}, {1, 2, 3, 0}};
  for (const auto& order : orders) {
    std::vector<Handle> blocks;
    for (int i = 0; i < 3; ++i) blocks.push_back(alloc.allocate(0, 4000).value());
    blocks.push_back(alloc.allocate(0, alloc.capacity(0) - 3 * footprint(4000)).value());
    EXPECT_FALSE(alloc.allocate(0, 0));
    for (const int i : order) alloc.release(blocks[static_cast<std::size_t>(i)]);
    EXPECT_EQ(alloc.used(), 0u);
    const auto whole = alloc.allocate(0, alloc.capacity(0));
    ASSERT_TRUE(whole) << "not merged after order " << order[0] << order[1] << order[2];
    EXPECT_EQ(*whole, blocks[0]);
    alloc.release(*whole);
  }
}

TEST_F(GeneralAllocatorTest, PicksTheBestFittingHole) {
  auto buffer = test::make_buffer("general", 1, 16 * 1024);
  auto& alloc = *buffer.allocator;
  std::vector<Handle> b;
  for (const std::size_t bytes : {2000, 64, 500, 64, 1000, 64})
    b.push_back(*alloc.allocate(0, bytes));
  alloc.release(b[0]);  // holes of 2000, 500 and 1000 bytes
  alloc.release(b[2]);
  alloc.release(b[4]);
  EXPECT_EQ(alloc.allocate(0, 900), b[4]);
  EXPECT_EQ(alloc.allocate(0, 400), b[2]);
  EXPECT_EQ(alloc.allocate(0, 1900), b[0]);
}

// ecluse-check's share and suggested size are the runtime's: client_share is each allocator's
// capacity laid out as NodeBuffer lays it (64-byte aligned, overhead added to the buffer size),
// and buffer_size_for the smallest buffer size that gives a client `need`.
TEST(ClientShare, IsWhatTheAllocatorsGiveAndTheSizeForANeedIsTheSmallest) {
  for (const AllocatorKind kind : {AllocatorKind::General, AllocatorKind::Partitioned}) {
    for (const int clients : {1, 2, 3, 7}) {
      for (const std::size_t size : {std::size_t{4096}, std::size_t{26880}, std::size_t{26945},
                                     std::size_t{100003}, std::size_t{1} << 20}) {
        const std::size_t overhead = allocator_overhead(kind, clients);
        // Page-aligned, as a shared segment is.
        const std::size_t bytes = (64 + overhead + size + 4095) / 4096 * 4096;
        std::unique_ptr<void, decltype(&std::free)> memory(std::aligned_alloc(4096, bytes),
                                                           std::free);
        auto allocator = make_allocator(kind, memory.get(), 64, overhead + size, clients, true);
        const std::size_t capacity = allocator->capacity(0);
        const std::size_t share = kind == AllocatorKind::Partitioned
                                      ? capacity
                                      : capacity / static_cast<std::size_t>(clients);
        EXPECT_EQ(client_share(kind, size, clients), share) << size << " " << clients;
      }
      for (const std::uint64_t need :
           {std::uint64_t{128}, std::uint64_t{26880}, std::uint64_t{99999}}) {
        const std::uint64_t size = buffer_size_for(kind, need, clients);
        EXPECT_GE(client_share(kind, size, clients), need) << need << " " << clients;
        EXPECT_EQ(size % 64, 0u);
        EXPECT_LT(client_share(kind, size - 64, clients), need) << need << " " << clients;
      }
    }
  }
}

}  // namespace
}  // namespace ecluse::shm
