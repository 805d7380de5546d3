// The "partitioned" allocator of a node's shared buffer: one lock-free ring per client, filled
// in FIFO order by that client alone, released in any order by the server; a ring found empty
// starts again at its beginning.
#pragma once

#include <cstddef>
#include <cstdint>

#include "shm/BufferAllocator.hpp"

namespace ecluse::shm {

/** Used blocks take 64 bytes of header plus the payload rounded up to 64 (what used() counts);
 * the padding that skips the end of a ring is not counted. No lock: a client that dies leaves
 * its own part as it was and the other parts untouched. */
class PartitionedAllocator final : public BufferAllocator {
 public:
  /** Bytes of bookkeeping in the region besides the rings (alignment slack included). */
  static std::size_t overhead(int clients);
  PartitionedAllocator(void* base, std::size_t offset, std::size_t size, int clients, bool init);

  /** Only `client` itself may allocate in its part (one thread at a time). */
  std::optional<Handle> allocate(int client, std::size_t bytes) override;
  void release(Handle handle) override;
  [[nodiscard]] std::size_t capacity(int client) const override;
  [[nodiscard]] std::size_t used() const override;
  std::atomic<std::uint32_t>& release_counter() override;

  struct State;
  struct Part;
  struct Record;

 private:
  Part& part(int client) const;
  Record* record(const Part& p, std::uint64_t position) const;
  void advance_tail(Part& p) const;
  bool make_room(Part& p, std::uint64_t need) const;
  void pad_to_lap_end(Part& p, std::uint64_t head, std::uint64_t lap_left) const;
  Record* checked_record(Handle handle, Part** owner) const;
  void format(std::uint64_t begin, std::uint64_t part_bytes, int clients);

  char* base_;
  State* state_;
};

}  // namespace ecluse::shm
