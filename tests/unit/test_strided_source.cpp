// StridedSource::pack against a plain reference (each element found by its index) for ranks 1-5,
// every element size, positive, negative, zero and transposed strides, merged and unmerged
// dimensions, empty arrays; nothing outside the destination is written.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "block/StridedSource.hpp"
#include "ecluse/Error.hpp"
#include "transport/TransportSupport.hpp"

namespace ecluse {
namespace {

constexpr std::size_t kGuard = 32;

/** The elements of the view, found one by one from their indices (no merging, no runs). */
std::vector<unsigned char> reference(const unsigned char* base,
                                     const std::vector<std::int64_t>& extents,
                                     const std::vector<std::int64_t>& strides, std::size_t size) {
  std::vector<unsigned char> out;
  std::uint64_t count = 1;
  for (std::int64_t e : extents) count *= static_cast<std::uint64_t>(e);
  for (std::uint64_t k = 0; k < count; ++k) {
    std::uint64_t rest = k;
    std::int64_t offset = 0;
    for (std::size_t d = extents.size(); d-- > 0;) {
      offset +=
          static_cast<std::int64_t>(rest % static_cast<std::uint64_t>(extents[d])) * strides[d];
      rest /= static_cast<std::uint64_t>(extents[d]);
    }
    out.insert(out.end(), base + offset, base + offset + size);
  }
  return out;
}

struct View {
  std::vector<std::int64_t> extents;
  std::vector<std::int64_t> strides;  // in elements
  std::int64_t origin;                // element index of (0, ..., 0) in the memory
};

void check(const View& v, std::size_t size, bool streaming) {
  std::vector<unsigned char> memory(4096 * size);
  for (std::size_t i = 0; i < memory.size(); ++i)
    memory[i] = static_cast<unsigned char>(i * 37 + i / 97);
  std::vector<std::int64_t> bytes;
  for (std::int64_t s : v.strides) bytes.push_back(s * static_cast<std::int64_t>(size));
  const unsigned char* base = memory.data() + v.origin * static_cast<std::int64_t>(size);
  const auto expected = reference(base, v.extents, bytes, size);
  const StridedSource source(base, v.extents, bytes, "v");
  ASSERT_EQ(source.elements() * size, expected.size());
  std::vector<unsigned char> out(expected.size() + 2 * kGuard, 0xA5);
  source.pack(out.data() + kGuard, size, copy_block, streaming);
  EXPECT_TRUE(std::memcmp(out.data() + kGuard, expected.data(), expected.size()) == 0)
      << "element size " << size << ", shape " << source.shape_text()
      << (streaming ? ", streaming" : "");
  for (std::size_t i = 0; i < kGuard; ++i) {
    ASSERT_EQ(out[i], 0xA5) << "before";
    ASSERT_EQ(out[out.size() - 1 - i], 0xA5) << "after";
  }
}

TEST(StridedSource, PacksEveryViewAsItsElementsInCOrder) {
  const std::vector<View> views = {
      {{6}, {1}, 0},                // contiguous
      {{7}, {3}, 2},                // every third
      {{8}, {-2}, 20},              // backwards
      {{4, 6}, {10, 1}, 12},        // interior of a 6 x 10 array
      {{4, 6}, {-10, -1}, 55},      // the same reversed
      {{3, 4}, {1, 3}, 0},          // a transpose
      {{2, 3}, {0, 1}, 5},          // a row repeated
      {{2, 3, 4}, {12, 4, 1}, 0},   // contiguous 3-D: merged into one run
      {{2, 3, 4}, {40, 8, 2}, 3},   // strided in every dimension
      {{5, 1, 4}, {12, 99, 1}, 4},  // a plane, with an extent of 1
      {{1, 1, 1}, {7, 8, 9}, 11},   // one element
      {{3, 2, 2, 2, 3}, {200, 60, 20, 5, 1}, 1},
      {{2, 3, 4}, {1, 2, 6}, 0},  // Fortran order read as C order
  };
  for (std::size_t size : {1, 2, 4, 8, 3, 16}) {
    for (const View& v : views) {
      for (bool streaming : {false, true}) check(v, size, streaming);
    }
  }
}

// Larger than the 64 KiB gather buffer: many flushes of gathered elements, and contiguous runs
// long enough to be copied straight.
TEST(StridedSource, LargeViewsCrossTheGatherBuffer) {
  std::vector<double> memory(3 * 40000);
  for (std::size_t i = 0; i < memory.size(); ++i) memory[i] = static_cast<double>(i) * 0.5;
  struct Large {
    std::vector<std::int64_t> extents, strides;  // strides in elements
  };
  const std::vector<Large> views = {
      {{3, 30000}, {40000, 1}},  // runs of 240 000 bytes
      {{3, 20000}, {40000, 2}},  // 160 000 bytes gathered per row
      {{300, 190}, {400, 2}},    // short gathered rows, many per buffer
  };
  for (const Large& v : views) {
    std::vector<std::int64_t> bytes;
    for (std::int64_t stride : v.strides) bytes.push_back(stride * 8);
    const auto* base = reinterpret_cast<const unsigned char*>(memory.data());
    const auto expected = reference(base, v.extents, bytes, 8);
    const StridedSource source(base, v.extents, bytes, "v");
    for (bool streaming : {false, true}) {
      std::vector<unsigned char> out(expected.size(), 0xA5);
      source.pack(out.data(), 8, copy_block, streaming);
      EXPECT_TRUE(out == expected)
          << "shape " << source.shape_text() << ", streaming " << streaming;
    }
  }
}

TEST(StridedSource, AnEmptyArrayWritesNothing) {
  const StridedSource source(nullptr, std::vector<std::int64_t>{3, 0, 2},
                             std::vector<std::int64_t>{8, 8, 8}, "v");
  EXPECT_EQ(source.elements(), 0u);
  unsigned char out = 0xA5;
  source.pack(&out, 8, copy_block, false);
  EXPECT_EQ(out, 0xA5);
}

void expect_refused(std::vector<std::int64_t> extents, std::vector<std::int64_t> strides,
                    const std::string& message) {
  try {
    const StridedSource source(nullptr, extents, strides, "v");
    ADD_FAILURE() << "accepted: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), ECLUSE_ARGUMENT_ERROR);
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST(StridedSource, RefusesShapesItCannotRead) {
  expect_refused({}, {},
                 "write of variable 'v': the array passed has rank 0; pass a rank from 1 to 16.");
  expect_refused({2, 3}, {8},
                 "write of variable 'v': 1 strides for 2 extents; pass one stride per dimension.");
  expect_refused(
      {2, -3}, {24, 8},
      "write of variable 'v': extent -3 in dimension 1 of the array passed is negative.");
  expect_refused(
      {1LL << 40, 1LL << 40}, {8, 8},
      "write of variable 'v': the array passed, of shape (1099511627776, 1099511627776), "
      "has more elements than 2^64.");
}

}  // namespace
}  // namespace ecluse
