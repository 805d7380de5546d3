#include "client/ScratchBlocks.hpp"

#include <algorithm>
#include <new>

namespace ecluse {

namespace {
constexpr std::align_val_t kAlignment{64};  // a cache line, as the node buffer's blocks
}  // namespace

void ScratchBlocks::Free::operator()(std::byte* memory) const {
  ::operator delete[](memory, kAlignment);
}

void* ScratchBlocks::take(const Key& key, std::size_t bytes) {
  Room& room = rooms_[key];  // a new node the first time only
  if (!room.memory || room.capacity < bytes) {
    const std::size_t capacity = std::max<std::size_t>(bytes, 1);
    room.memory.reset(static_cast<std::byte*>(::operator new[](capacity, kAlignment)));
    room.capacity = capacity;
  }
  if (!room.live) ++live_;
  room.live = true;
  return room.memory.get();
}

bool ScratchBlocks::live(const Key& key) const {
  if (live_ == 0) return false;
  const auto it = rooms_.find(key);
  return it != rooms_.end() && it->second.live;
}

bool ScratchBlocks::release(const Key& key) {
  if (live_ == 0) return false;
  const auto it = rooms_.find(key);
  if (it == rooms_.end() || !it->second.live) return false;
  it->second.live = false;
  --live_;
  return true;
}

std::size_t ScratchBlocks::discard() {
  const std::size_t dropped = live_;
  if (dropped == 0) return 0;
  for (auto& [key, room] : rooms_) room.live = false;
  live_ = 0;
  return dropped;
}

}  // namespace ecluse
