// The "general" allocator of a node's shared buffer: best fit with coalescing, one robust
// process-shared mutex, block headers in the shared region.
#pragma once

#include <cstddef>
#include <cstdint>

#include "shm/BufferAllocator.hpp"

namespace ecluse::shm {

/** Used blocks take 64 bytes of header plus the payload rounded up to 64 (what used() counts).
 * If a process dies holding the mutex (EOWNERDEAD), the state can be inconsistent only if it
 * died inside the critical section, i.e. in allocate() or release(); the next locker then
 * rebuilds the free list and used() from the block headers and calls pthread_mutex_consistent,
 * or, if a header itself is torn, leaves the mutex unrecoverable so that every process gets an
 * ECLUSE_CHANNEL_ERROR. A block the dead process was allocating may stay in use (leaked). */
class GeneralAllocator final : public BufferAllocator {
 public:
  /** Bytes of bookkeeping in the region besides the blocks (alignment slack included). */
  static std::size_t overhead();
  GeneralAllocator(void* base, std::size_t offset, std::size_t size, bool init);

  std::optional<Handle> allocate(int client, std::size_t bytes) override;
  void release(Handle handle) override;
  [[nodiscard]] std::size_t capacity(int client) const override;
  [[nodiscard]] std::size_t used() const override;
  std::atomic<std::uint32_t>& release_counter() override;

  struct State;
  struct Block;

 private:
  Block* block(std::uint64_t offset) const;
  std::uint64_t offset_of(const Block* b) const;
  Block* next_of(const Block* b) const;
  void resize(Block* b, std::uint64_t size);
  std::uint64_t best_fit(std::uint64_t need) const;
  void unlink_free(Block* b);
  void push_free(Block* b);
  void split(Block* b, std::uint64_t need);
  Block* coalesce(Block* b);
  Block* checked_block(Handle handle) const;
  void format(std::uint64_t begin, std::uint64_t bytes);
  void rebuild();

  char* base_;
  State* state_;
};

}  // namespace ecluse::shm
