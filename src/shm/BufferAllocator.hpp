// Allocators of a node's shared buffer, their state inside the segment, usable by every process.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "config/ConfigEnums.hpp"
#include "shm/ShmTypes.hpp"

namespace ecluse::shm {

/** Bytes a block of `bytes` really takes in both allocators: a 64-byte header plus the payload
 * rounded up to 64 bytes. */
inline std::size_t block_footprint(std::size_t bytes) {
  return 64 + (bytes + 63) / 64 * 64;
}

/** What one of `clients` clients may hold of a node buffer of `buffer_size` bytes (<buffer
 * size>), as NodeBuffer lays the allocator out: the general allocator's capacity shared
 * equally, or a partitioned allocator's part. The figure a write is refused against, for
 * ecluse-check to say the same. */
std::size_t client_share(AllocatorKind kind, std::size_t buffer_size, int clients);
/** The smallest <buffer size>, a multiple of 64 bytes, whose client_share is at least `need`. */
std::uint64_t buffer_size_for(AllocatorKind kind, std::uint64_t need, int clients);

/** Throws ECLUSE_ALLOCATION_ERROR when `client`'s block of `bytes` can never fit: `room` says
 * what holds at most `capacity` bytes, `fix` how to make it fit (C strings: an allocation
 * in steady state allocates nothing on the heap). */
void refuse_if_never_fits(int client, std::size_t bytes, std::size_t capacity, const char* room,
                          const char* fix);

/** A per-process view of allocator state that lives in shared memory at [base+offset, +size).
 * Handles are offsets from `base` (the segment start), valid in every process. */
class BufferAllocator {
 public:
  virtual ~BufferAllocator() = default;
  /** nullopt when there is no room now (backpressure: wait for a release and retry). */
  virtual std::optional<Handle> allocate(int client, std::size_t bytes) = 0;
  virtual void release(Handle handle) = 0;
  /** Largest block `client` could ever get (an empty buffer); bigger requests are errors. */
  [[nodiscard]] virtual std::size_t capacity(int client) const = 0;
  /** Bytes in use now (for statistics and tests). */
  [[nodiscard]] virtual std::size_t used() const = 0;
  /** Incremented on every release; clients sleep on it (futex) while the buffer is full. */
  virtual std::atomic<std::uint32_t>& release_counter() = 0;
};

/** "general": best-fit with coalescing under a process-shared robust mutex; any client, any size.
 * `init` is true in the one process that formats the region (the server). */
std::unique_ptr<BufferAllocator> make_general_allocator(void* base, std::size_t offset,
                                                        std::size_t size, bool init);
/** "partitioned": the region split in `clients` equal parts, each a lock-free ring owned by one
 * client (single producer: that client; releases in any order by the server). */
std::unique_ptr<BufferAllocator> make_partitioned_allocator(void* base, std::size_t offset,
                                                            std::size_t size, int clients,
                                                            bool init);
/** Bytes of shared memory the allocator needs for its own bookkeeping besides the data. */
std::size_t allocator_overhead(AllocatorKind kind, int clients);
/** The allocator of `kind` over [base + offset, + size). */
std::unique_ptr<BufferAllocator> make_allocator(AllocatorKind kind, void* base, std::size_t offset,
                                                std::size_t size, int clients, bool init);

}  // namespace ecluse::shm
