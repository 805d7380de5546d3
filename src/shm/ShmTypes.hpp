// Types that cross processes through a node's shared-memory segment: offsets, never pointers.
#pragma once

#include <cstdint>

namespace ecluse::shm {

/** Offset of a block from the start of the segment. */
using Handle = std::uint64_t;
inline constexpr Handle kNoHandle = ~Handle{0};
inline constexpr int kMaxDims = 8;

enum class EventType : std::uint32_t {
  Write = 1,         // a block is ready at `handle` (write or commit)
  EndIteration = 2,  // the source ended `iteration`
  Signal = 3,        // user event `name`
  Stop = 4,          // the source will send nothing more
  Parameter = 5,     // reserved: a parameter changed on the source
};

/** One notification; fixed size so that the queue is a plain ring of cells. */
struct Event {
  EventType type = EventType::Write;
  std::int32_t source = 0;  // client rank in the clients' communicator
  std::int32_t client = 0;  // node-local client index (for the node's accounting)
  std::int32_t iteration = 0;
  std::int32_t variable = 0;  // index in Config::variables
  std::int32_t block = 0;
  std::int32_t ndims = 0;
  Handle handle = kNoHandle;  // data of a Write
  std::uint64_t bytes = 0;
  std::uint64_t dims[kMaxDims] = {};
  std::uint64_t ghost_lo[kMaxDims] = {};
  std::uint64_t ghost_hi[kMaxDims] = {};
  std::uint64_t global[kMaxDims] = {};  // all 0: not declared
  std::int64_t position[kMaxDims] = {};
  char name[64] = {};  // event name of a Signal
};

}  // namespace ecluse::shm
