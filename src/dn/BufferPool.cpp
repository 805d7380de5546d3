// Best-fit reuse of message buffers, bounded in retained memory; large ones on huge pages.
#include "dn/BufferPool.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "core/Pages.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {

namespace {

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

// Blocks below this size fault a few pages at most: not worth a buffer of their own.
constexpr std::size_t kSmallestPrefilled = std::size_t{64} << 10;
// Rounds of an iteration's blocks at most: a client rarely has more iterations in flight.
constexpr int kMostRounds = 8;

std::string prefault_advice() {
  return "; lower <buffer size>, or set <buffer prefault=\"false\"> to map its pages at first "
         "use";
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

void BufferPool::prefill(const std::vector<std::size_t>& sizes, std::size_t bound,
                         const char* what) {
  bound = std::min(bound, retained_);
  std::vector<Buffer> made;
  std::size_t total = 0;
  try {
    for (int round = 0; round < kMostRounds; ++round) {
      const std::size_t before = total;
      for (const std::size_t bytes : sizes) {
        if (bytes < kSmallestPrefilled) continue;
        if (bytes > bound - total) return release_all(made);
        Buffer b;
        b.data = allocate_message_memory(bytes, b.capacity);
        if (const int error = populate_pages(b.data.get(), b.capacity, false); error != 0) {
          throw Error(ECLUSE_ALLOCATION_ERROR, "cannot prefault " + std::to_string(bound) +
                                                   " bytes of " + what + ": " +
                                                   std::strerror(error) + prefault_advice());
        }
        total += std::min(b.capacity, bound - total);
        made.push_back(std::move(b));
      }
      if (total == before) break;
    }
  } catch (const std::bad_alloc&) {
    throw Error(ECLUSE_ALLOCATION_ERROR, "cannot allocate " + std::to_string(bound) + " bytes of " +
                                             what + prefault_advice());
  }
  release_all(made);
}

void BufferPool::release_all(std::vector<Buffer>& buffers) {
  for (Buffer& b : buffers) release(std::move(b));
  buffers.clear();
}

}  // namespace ecluse
