// Staging of a time-partitioning iteration.
#include "transport/DirectTransport.hpp"

#include <cstring>

namespace ecluse {

void DirectTransport::put(const BlockData& block, std::size_t bytes) {
  Slot& slot = slots_[{block.variable, block.block}];
  slot.bytes.resize(bytes);
  std::memcpy(slot.bytes.data(), block.data, bytes);
  slot.block = block;
  slot.block.data = slot.bytes.data();
  slot.filled = true;
}

void DirectTransport::end_iteration(int iteration) {
  std::vector<BlockData> blocks;
  for (auto& [key, slot] : slots_) {
    if (slot.filled) blocks.push_back(slot.block);
    slot.filled = false;
  }
  writer_.write_iteration(iteration, blocks);
}

std::size_t DirectTransport::discard() {
  std::size_t dropped = 0;
  for (auto& [key, slot] : slots_) {
    dropped += slot.filled ? 1 : 0;
    slot.filled = false;
  }
  return dropped;
}

}  // namespace ecluse
