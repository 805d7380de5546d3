// The fixed-size message that carries a block's description (or an end of iteration, a signal,
// a stop) from a client to its server: pushed on a node queue in DC, sent over MPI in DN.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "block/BlockData.hpp"
#include "config/Config.hpp"
#include "config/Limits.hpp"

namespace ecluse {

inline constexpr int kMaxDims = static_cast<int>(limits::kDedicatedDimensions);
/** No block reference: a message that carries no data, or a write that was skipped. */
inline constexpr std::uint64_t kNoBlock = ~std::uint64_t{0};

enum class MessageType : std::uint32_t {
  Write = 1,         // a block is ready at `handle` (write or commit)
  EndIteration = 2,  // the source ended `iteration`
  Signal = 3,        // user event `name`
  Stop = 4,          // the source will send nothing more
  Parameter = 5,     // reserved: a parameter changed on the source
  Batch = 7,         // DN: `block` small Writes, each header then payload, in one message
};

/** One message; fixed size so that the DC queue is a plain ring of cells and DN sends one
 * header of a known size. */
struct BlockMessage {
  MessageType type = MessageType::Write;
  std::int32_t source = 0;  // client rank in the clients' communicator
  std::int32_t client = 0;  // node-local client index (for the node's accounting)
  std::int32_t iteration = 0;
  std::int32_t variable = 0;  // index in Config::variables
  std::int32_t block = 0;
  std::int32_t ndims = 0;
  std::int32_t positioned = 0;  // 1: the client gave the block a position (ecluse_set_position)
  // Where the server finds the data of a Write: its offset in the node buffer (DC), its key in
  // the server's table of received payloads (DN, set by the server).
  std::uint64_t handle = kNoBlock;
  std::uint64_t bytes = 0;
  // DN: the client's time since it sent its previous message, in microseconds (0 for the
  // first); the server paces its polls by it (PollPacer).
  std::uint64_t since_previous_us = 0;
  std::uint64_t dims[kMaxDims] = {};
  std::uint64_t ghost_lo[kMaxDims] = {};
  std::uint64_t ghost_hi[kMaxDims] = {};
  std::uint64_t global[kMaxDims] = {};  // all 0: not declared
  std::int64_t position[kMaxDims] = {};
  char name[64] = {};  // event name of a Signal
};

/** The Write message describing `block` (dimensions at most kMaxDims). */
BlockMessage describe_block(const Config& config, const BlockData& block, std::size_t bytes);

/** The block a Write message describes, its data at `data` (the inverse of describe_block). */
BlockData block_of(const Config& config, const BlockMessage& message, const void* data);

/** Throws ECLUSE_INVALID_DIMENSIONS when `block` has more dimensions than a message holds. */
void check_dimensions(const BlockData& block, const std::string& approach);

}  // namespace ecluse
