// Best-fit reuse of message buffers, bounded in retained memory.
#include "dn/BufferPool.hpp"

namespace ecluse {

BufferPool::Buffer BufferPool::acquire(std::size_t bytes) {
  auto it = free_.lower_bound(bytes);
  if (it != free_.end() && it->first <= 2 * bytes + 4096) {
    Buffer b{std::move(it->second), it->first};
    free_bytes_ -= it->first;
    free_.erase(it);
    return b;
  }
  const std::size_t capacity = bytes > 0 ? bytes : 1;
  return {std::make_unique_for_overwrite<char[]>(capacity), capacity};
}

void BufferPool::release(Buffer buffer) {
  if (!buffer) return;
  // Drop the largest free buffers first when over the bound: they are the rarest sizes.
  while (!free_.empty() && free_bytes_ + buffer.capacity > retained_) {
    auto largest = std::prev(free_.end());
    free_bytes_ -= largest->first;
    free_.erase(largest);
  }
  if (buffer.capacity > retained_) return;
  free_bytes_ += buffer.capacity;
  free_.emplace(buffer.capacity, std::move(buffer.data));
}

}  // namespace ecluse
