// Types that cross processes through a node's shared-memory segment: offsets, never pointers.
#pragma once

#include <cstdint>

namespace ecluse::shm {

/** Offset of a block from the start of the segment. */
using Handle = std::uint64_t;
inline constexpr Handle kNoHandle = ~Handle{0};

}  // namespace ecluse::shm
