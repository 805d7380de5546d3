// Reusable memory blocks for messages: steady-state writes reuse the pages of earlier
// iterations instead of paying for fresh allocations and page faults.
#pragma once

#include <cstddef>
#include <map>
#include <memory>

namespace ecluse {

class BufferPool {
 public:
  struct Buffer {
    std::unique_ptr<char[]> data;
    std::size_t capacity = 0;
    explicit operator bool() const { return static_cast<bool>(data); }
  };
  /** Keeps at most `retained` bytes of free buffers. */
  explicit BufferPool(std::size_t retained) : retained_(retained) {}
  /** A buffer of at least `bytes` (reused when one of up to twice that size is free). */
  Buffer acquire(std::size_t bytes);
  void release(Buffer buffer);
  [[nodiscard]] std::size_t free_bytes() const { return free_bytes_; }

 private:
  std::multimap<std::size_t, std::unique_ptr<char[]>> free_;
  std::size_t free_bytes_ = 0;
  std::size_t retained_;
};

}  // namespace ecluse
