// Best-fit reuse of message buffers, bounded in retained memory; large ones on huge pages.
#include "dn/BufferPool.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace ecluse {

namespace {

std::size_t page_bytes() {
  static const std::size_t bytes = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return bytes;
}

std::size_t round_up(std::size_t bytes, std::size_t unit) {
  return (bytes + unit - 1) / unit * unit;
}

// `length` bytes (whole pages) starting on a 2 MiB boundary: a mapping 2 MiB longer, whose
// head before the boundary and tail after the length are unmapped again.
char* map_aligned(std::size_t length) {
  if (length > SIZE_MAX - kHugePageBytes) throw std::bad_alloc();
  const std::size_t over = length + kHugePageBytes;
  void* mapped = ::mmap(nullptr, over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(mapped);
  const std::uintptr_t aligned = round_up(start, kHugePageBytes);
  const std::size_t head = aligned - start;
  if (head > 0) ::munmap(mapped, head);
  const std::size_t tail = over - head - length;
  if (tail > 0) ::munmap(reinterpret_cast<char*>(aligned + length), tail);
  return reinterpret_cast<char*>(aligned);
}

// ECLUSE_HUGE_PAGES=1 turns huge pages on (off by default: bench/dn_huge_pages.sh). Read at
// each allocation (a few per run: buffers are reused), so a benchmark may switch it.
bool huge_pages_allowed() {
  const char* env = std::getenv("ECLUSE_HUGE_PAGES");
  return env != nullptr && std::strcmp(env, "1") == 0;
}

}  // namespace

void MessageMemoryDeleter::operator()(char* data) const noexcept {
  if (mapped == 0) {
    delete[] data;
  } else {
    ::munmap(data, mapped);
  }
}

MessageMemory allocate_message_memory(std::size_t bytes, std::size_t& capacity) {
  if (bytes < kHugePageBytes || !huge_pages_allowed()) {
    capacity = bytes > 0 ? bytes : 1;
    return MessageMemory(new char[capacity], MessageMemoryDeleter{0});
  }
  capacity = round_up(bytes, page_bytes());
  char* data = map_aligned(capacity);
  // A hint: EINVAL where the kernel has no transparent huge pages, and normal pages then.
  ::madvise(data, capacity, MADV_HUGEPAGE);
  return MessageMemory(data, MessageMemoryDeleter{capacity});
}

BufferPool::Buffer BufferPool::acquire(std::size_t bytes) {
  auto it = free_.lower_bound(bytes);
  if (it != free_.end() && it->first <= 2 * bytes + 4096) {
    Buffer b{std::move(it->second), it->first};
    free_bytes_ -= it->first;
    free_.erase(it);
    return b;
  }
  Buffer b;
  b.data = allocate_message_memory(bytes, b.capacity);
  return b;
}

void BufferPool::release(Buffer buffer) {
  if (!buffer || buffer.capacity > retained_) return;  // never kept: keep the others
  // Drop the largest free buffers first when over the bound: they are the rarest sizes.
  while (!free_.empty() && free_bytes_ + buffer.capacity > retained_) {
    auto largest = std::prev(free_.end());
    free_bytes_ -= largest->first;
    free_.erase(largest);
  }
  free_bytes_ += buffer.capacity;
  free_.emplace(buffer.capacity, std::move(buffer.data));
}

}  // namespace ecluse
