// Reusable memory blocks for messages: steady-state writes reuse the pages of earlier
// iterations instead of paying for fresh allocations and page faults. With ECLUSE_HUGE_PAGES=1
// in the environment, blocks of 2 MiB and more are mapped on their own, aligned to 2 MiB and
// advised for transparent huge pages (MADV_HUGEPAGE): a DN client's first write of a block then
// takes a quarter of the time (16 times fewer page faults), but with 64 MiB blocks its later
// writes and the run took 1.3-1.4x longer here (bench/dn_huge_pages.sh), hence off by default.
// Where the kernel gives no huge pages the advice is ignored and the block has normal pages.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <vector>

namespace ecluse {

/** Frees what allocate_message_memory returned (`mapped` bytes mapped with mmap, or new[]). */
struct MessageMemoryDeleter {
  std::size_t mapped = 0;  // 0: allocated with new[]
  void operator()(char* data) const noexcept;
};

using MessageMemory = std::unique_ptr<char[], MessageMemoryDeleter>;

/** At least `bytes` of uninitialized memory, and its usable size in `capacity`. From 2 MiB
 * (kHugePageBytes): an anonymous mapping whose start is 2 MiB-aligned, advised MADV_HUGEPAGE,
 * its capacity `bytes` rounded up to whole pages, when ECLUSE_HUGE_PAGES=1 is in the
 * environment; else, or below 2 MiB, new[] of `bytes` (at least 1).
 * Throws std::bad_alloc when the memory cannot be had. */
MessageMemory allocate_message_memory(std::size_t bytes, std::size_t& capacity);

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

class BufferPool {
 public:
  struct Buffer {
    MessageMemory data;
    std::size_t capacity = 0;
    explicit operator bool() const { return static_cast<bool>(data); }
  };
  /** Keeps at most `retained` bytes of free buffers. */
  explicit BufferPool(std::size_t retained) : retained_(retained) {}
  /** A buffer of at least `bytes` (reused when one of up to twice that size is free). */
  Buffer acquire(std::size_t bytes);
  void release(Buffer buffer);
  /** Pre-faults the memory of whole rounds of `sizes` (one iteration's blocks, say), as many
   * rounds as fit in `bound` bytes and in the pool's bound (at most 8; sizes below 64 KiB are
   * left out): buffers of those sizes are
   * allocated, every page of them mapped for writing (MADV_POPULATE_WRITE, else a write to each
   * page), and kept free in the pool, so the first writes reuse them instead of faulting.
   * Throws Error(ECLUSE_ALLOCATION_ERROR) naming `what` when the memory cannot be had. */
  void prefill(const std::vector<std::size_t>& sizes, std::size_t bound, const char* what);
  [[nodiscard]] std::size_t free_bytes() const { return free_bytes_; }

 private:
  void release_all(std::vector<Buffer>& buffers);
  std::multimap<std::size_t, MessageMemory> free_;
  std::size_t free_bytes_ = 0;
  std::size_t retained_;
};

}  // namespace ecluse
