// copy_block, cached and streaming: every byte arrives for every size around the 16-byte
// alignment and 64-byte body of the streaming copy, at every relative offset of source and
// destination, and nothing outside the destination is written.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "transport/TransportSupport.hpp"

namespace ecluse {
namespace {

constexpr std::size_t kGuard = 64;

std::vector<std::uint8_t> pattern(std::size_t n, std::uint8_t seed) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(seed + i * 131 + i / 251);
  return v;
}

void check_copy(std::size_t bytes, std::size_t from_offset, std::size_t to_offset, bool streaming) {
  const auto source = pattern(bytes + 32, 7);
  std::vector<std::uint8_t> target(bytes + 32 + 2 * kGuard, 0xA5);
  std::uint8_t* to = target.data() + kGuard + to_offset;
  copy_block(to, source.data() + from_offset, bytes, streaming);
  for (std::size_t i = 0; i < bytes; ++i) {
    ASSERT_EQ(to[i], source[from_offset + i])
        << "byte " << i << " of " << bytes << ", offsets " << from_offset << "/" << to_offset;
  }
  for (std::size_t i = 0; i < kGuard + to_offset; ++i) ASSERT_EQ(target[i], 0xA5) << "before";
  for (std::size_t i = kGuard + to_offset + bytes; i < target.size(); ++i) {
    ASSERT_EQ(target[i], 0xA5) << "after, " << bytes << " bytes";
  }
}

TEST(CopyBlock, EverySizeAndOffsetArrivesWhole) {
  const std::vector<std::size_t> sizes = {0,  1,  7,   15,  16,  17,  31,   48,   63,
                                          64, 65, 127, 128, 129, 200, 4095, 4096, 70001};
  for (bool streaming : {false, true}) {
    for (std::size_t bytes : sizes) {
      for (std::size_t from = 0; from < 16; from += 3) {
        for (std::size_t to = 0; to < 16; ++to) check_copy(bytes, from, to, streaming);
      }
    }
  }
}

TEST(CopyBlock, LargeStreamingCopyMatchesMemcpy) {
  const std::size_t bytes = (std::size_t{3} << 20) + 13;  // 3 MiB and a tail
  check_copy(bytes, 5, 9, true);
  check_copy(bytes, 0, 0, true);
}

TEST(RaiseBuffer, SaysWhereTheBufferIsAndTheSizeThatFits) {
  Architecture a;
  a.buffer_size = 262144;
  a.buffer_where = {"sim.xml", 4, 5};
  // A client's share grows with the buffer: 262080 of 262144 bytes, a block of 720064 needs
  // 720064 * 262144 / 262080 (rounded up).
  EXPECT_EQ(raise_buffer(a, 720064, 262080),
            "raise <buffer size> (now 262144 bytes (256.0 KiB), at sim.xml:4:5) to at least "
            "720240 bytes (703.4 KiB)");
  // From 1 MiB on, whole MiB.
  a.buffer_size = 64ull << 20;
  EXPECT_EQ(raise_buffer(a, 100000000, 33554400),
            "raise <buffer size> (now 67108864 bytes (64.0 MiB), at sim.xml:4:5) to at least "
            "200278016 bytes (191.0 MiB)");
  // No <buffer> in the file: the default, and where to add it.
  a.buffer_where = {};
  EXPECT_EQ(raise_buffer(a, 100000000, 33554400),
            "add <buffer size=\"...\"/> to <architecture> with at least 200278016 bytes (191.0 "
            "MiB) (the default is 67108864 bytes (64.0 MiB))");
}

}  // namespace
}  // namespace ecluse
