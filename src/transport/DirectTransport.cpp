// Staging of a time-partitioning iteration.
#include "transport/DirectTransport.hpp"

#include "transport/TransportSupport.hpp"

namespace ecluse {

DirectTransport::Slot& DirectTransport::slot(const Variable& variable, int block) {
  return slots_[{&variable, block}];
}

void* DirectTransport::alloc(const BlockData& block, std::size_t bytes) {
  Slot& s = slot(*block.variable, block.block);
  s.bytes.resize(bytes);
  s.block = block;
  s.block.data = s.bytes.data();
  s.allocated = true;
  s.filled = false;
  return s.bytes.data();
}

bool DirectTransport::put(const BlockData& block, std::size_t bytes, const StridedSource* strided) {
  void* room = alloc(block, bytes);
  copy_source(room, block, strided, bytes, false);
  commit(*block.variable, block.block);
  return true;
}

bool DirectTransport::allocated_now(const Variable& variable, int block) const {
  const auto it = slots_.find({&variable, block});
  return it != slots_.end() && it->second.allocated;
}

void DirectTransport::commit(const Variable& variable, int block) {
  Slot& s = slot(variable, block);
  if (!s.allocated) {
    throw_not_allocated(variable, block);
  }
  s.allocated = false;
  s.filled = true;
}

void DirectTransport::clear(const Variable& variable, int block) {
  Slot& s = slot(variable, block);
  s.allocated = false;
  s.filled = false;
}

void DirectTransport::end_iteration(int iteration) {
  std::vector<BlockData> blocks;
  for (auto& [key, s] : slots_) {
    if (s.filled) blocks.push_back(s.block);
    s.filled = false;
  }
  if (agreement_) agreement_->before_end_iteration(iteration);  // throws: not stored
  writer_.write_iteration(iteration, blocks);
}

// Only allocations: blocks put (filled) are this iteration's, ended by end_iteration.
std::size_t DirectTransport::discard() {
  std::size_t dropped = 0;
  for (auto& [key, s] : slots_) {
    dropped += s.allocated ? 1 : 0;
    s.allocated = false;
  }
  return dropped;
}

}  // namespace ecluse
