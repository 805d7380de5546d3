// Per-client rings in the shared buffer. Positions are 64-bit byte counters that only grow (the
// ring offset is position % part size), so full and empty differ and a stale compare-exchange on
// the tail can never succeed. The client alone moves the head; whoever finds released records
// at the tail (the releasing server or the allocating client) moves the tail past them.
#include "shm/PartitionedAllocator.hpp"

#include <climits>
#include <new>

#include "core/Futex.hpp"
#include "ecluse/Error.hpp"

namespace ecluse::shm {

namespace {

constexpr std::uint64_t kAlign = 64;
constexpr std::uint64_t kStateMagic = 0x45434c5553455041;  // "ECLUSEPA"
constexpr std::uint32_t kBlockMagic = 0xb10cb10c;
constexpr std::uint32_t kPaddingMagic = 0x9add9add;  // skipped end of the ring, never a handle

constexpr std::uint64_t round_up(std::uint64_t n) {
  return (n + kAlign - 1) / kAlign * kAlign;
}

}  // namespace

struct alignas(kAlign) PartitionedAllocator::State {
  std::atomic<std::uint64_t> magic;
  std::uint64_t begin;       // offset of the first ring
  std::uint64_t part_bytes;  // bytes of each ring
  std::int32_t clients;
  alignas(kAlign) std::atomic<std::uint32_t> releases;
};

// Head and tail on separate cache lines: the client and the server write them concurrently.
struct alignas(kAlign) PartitionedAllocator::Part {
  std::atomic<std::uint64_t> head;                  // next position the client fills
  std::uint64_t ring;                               // offset of the ring from the segment base
  alignas(kAlign) std::atomic<std::uint64_t> tail;  // oldest position not yet given back
  std::atomic<std::uint64_t> live;                  // bytes of blocks in use (used())
};

// Fields are atomics because a helper moving the tail may read a record while the client
// rewrites it; its compare-exchange then fails and the value read is dropped.
struct alignas(kAlign) PartitionedAllocator::Record {
  std::atomic<std::uint64_t> size;  // header included
  std::atomic<std::uint32_t> released;
  std::atomic<std::uint32_t> magic;
};

namespace {

constexpr std::uint64_t kHeader = sizeof(PartitionedAllocator::Record);
static_assert(kHeader == kAlign);
static_assert(std::atomic<std::uint64_t>::is_always_lock_free);

}  // namespace

std::size_t PartitionedAllocator::overhead(int clients) {
  if (clients < 1) {
    throw Error(ECLUSE_ARGUMENT_ERROR, "the partitioned allocator needs at least one client, got " +
                                           std::to_string(clients));
  }
  // kAlign - 1: the worst slack when the region does not start on a 64-byte boundary.
  return sizeof(State) + static_cast<std::size_t>(clients) * sizeof(Part) + kAlign - 1;
}

PartitionedAllocator::PartitionedAllocator(void* base, std::size_t offset, std::size_t size,
                                           int clients, bool init)
    : base_(static_cast<char*>(base)) {
  const std::size_t bookkeeping = overhead(clients);  // also rejects clients < 1
  const auto address = reinterpret_cast<std::uintptr_t>(base_) + offset;
  const std::uint64_t start = offset + (round_up(address) - address);
  const std::uint64_t begin = start + bookkeeping - (kAlign - 1);
  const std::uint64_t end = offset + size;
  const std::uint64_t part_bytes =
      end > begin ? (end - begin) / static_cast<std::uint64_t>(clients) / kAlign * kAlign : 0;
  if (part_bytes < 2 * kHeader) {
    throw Error(
        ECLUSE_ALLOCATION_ERROR,
        "the shared buffer (" + std::to_string(size) + " bytes) is too small to give " +
            std::to_string(clients) + " clients a part each: it needs " +
            std::to_string(bookkeeping + 2 * kHeader * static_cast<std::uint64_t>(clients)) +
            " bytes at least; raise the buffer size in the configuration");
  }
  state_ = reinterpret_cast<State*>(base_ + start);
  if (init) {
    format(begin, part_bytes, clients);
  } else if (state_->magic.load(std::memory_order_acquire) != kStateMagic ||
             state_->begin != begin || state_->part_bytes != part_bytes ||
             state_->clients != clients) {
    throw Error(ECLUSE_CHANNEL_ERROR,
                "no partitioned allocator for " + std::to_string(clients) + " clients at offset " +
                    std::to_string(offset) +
                    " of the shared segment: the dedicated core has not formatted it yet, or "
                    "client and server disagree on the buffer layout (same configuration?)");
  }
}

void PartitionedAllocator::format(std::uint64_t begin, std::uint64_t part_bytes, int clients) {
  auto* state = new (state_) State{};
  state->begin = begin;
  state->part_bytes = part_bytes;
  state->clients = clients;
  auto* parts = reinterpret_cast<Part*>(state + 1);
  for (int c = 0; c < clients; ++c) {
    auto* p = new (&parts[c]) Part{};
    p->ring = begin + static_cast<std::uint64_t>(c) * part_bytes;
  }
  // Published last: an attaching process sees a complete allocator or none.
  state->magic.store(kStateMagic, std::memory_order_release);
}

PartitionedAllocator::Part& PartitionedAllocator::part(int client) const {
  if (client < 0 || client >= state_->clients) {
    throw Error(ECLUSE_ARGUMENT_ERROR, "client " + std::to_string(client) +
                                           " has no part in the shared buffer, which has " +
                                           std::to_string(state_->clients) + " clients");
  }
  return reinterpret_cast<Part*>(state_ + 1)[client];
}

PartitionedAllocator::Record* PartitionedAllocator::record(const Part& p,
                                                           std::uint64_t position) const {
  return reinterpret_cast<Record*>(base_ + p.ring + position % state_->part_bytes);
}

// Lock-free: a compare-exchange that loses means someone else moved the tail; read it again.
void PartitionedAllocator::advance_tail(Part& p) const {
  for (;;) {
    auto tail = p.tail.load(std::memory_order_acquire);
    if (tail == p.head.load(std::memory_order_acquire)) return;
    const Record* r = record(p, tail);
    if (r->released.load(std::memory_order_acquire) == 0) return;
    const auto size = r->size.load(std::memory_order_relaxed);
    p.tail.compare_exchange_strong(tail, tail + size, std::memory_order_acq_rel);
  }
}

// Called by the owning client only: the rest of the lap becomes a released padding record,
// which the tail then passes.
void PartitionedAllocator::pad_to_lap_end(Part& p, std::uint64_t head,
                                          std::uint64_t lap_left) const {
  Record* pad = record(p, head);
  pad->size.store(lap_left, std::memory_order_relaxed);
  pad->magic.store(kPaddingMagic, std::memory_order_relaxed);
  pad->released.store(1, std::memory_order_relaxed);
  p.head.store(head + lap_left, std::memory_order_release);
  advance_tail(p);
}

// Called by the owning client only. A block never straddles the end of the ring: the rest of
// the lap is padded, even if the block itself must still wait (so an empty ring always takes a
// block as large as capacity()). An empty ring starts again at its beginning: a simulation
// whose server keeps up then writes each iteration to the same addresses, still in the caches
// and TLBs of both sides, instead of walking the whole buffer.
bool PartitionedAllocator::make_room(Part& p, std::uint64_t need) const {
  auto head = p.head.load(std::memory_order_relaxed);
  advance_tail(p);
  const auto lap_left = state_->part_bytes - head % state_->part_bytes;
  const bool empty = head == p.tail.load(std::memory_order_acquire);
  if (lap_left != state_->part_bytes && (empty || need > lap_left)) {
    if (head - p.tail.load(std::memory_order_acquire) + lap_left > state_->part_bytes) {
      return false;
    }
    pad_to_lap_end(p, head, lap_left);
    head += lap_left;
  }
  return head - p.tail.load(std::memory_order_acquire) + need <= state_->part_bytes;
}

std::optional<Handle> PartitionedAllocator::allocate(int client, std::size_t bytes) {
  Part& p = part(client);
  refuse_if_never_fits(client, bytes, capacity(client), "its part of the shared buffer holds",
                       "raise the buffer size or use allocator \"general\"");
  const std::uint64_t need = kHeader + round_up(bytes);
  if (!make_room(p, need)) return std::nullopt;
  const auto head = p.head.load(std::memory_order_relaxed);
  Record* r = record(p, head);
  r->size.store(need, std::memory_order_relaxed);
  r->magic.store(kBlockMagic, std::memory_order_relaxed);
  r->released.store(0, std::memory_order_relaxed);
  p.live.fetch_add(need, std::memory_order_relaxed);
  p.head.store(head + need, std::memory_order_release);  // publishes the record
  return static_cast<Handle>(reinterpret_cast<char*>(r) - base_) + kHeader;
}

PartitionedAllocator::Record* PartitionedAllocator::checked_record(Handle handle,
                                                                   Part** owner) const {
  const auto begin = state_->begin;
  const auto end = begin + state_->part_bytes * static_cast<std::uint64_t>(state_->clients);
  // The header decides the part: a 0-byte block ending a ring has its handle on the next one.
  const bool inside =
      handle >= begin + kHeader && handle - kHeader < end && (handle - begin) % kAlign == 0;
  Record* r = inside ? reinterpret_cast<Record*>(base_ + handle - kHeader) : nullptr;
  if (r == nullptr || r->magic.load(std::memory_order_relaxed) != kBlockMagic) {
    throw Error(ECLUSE_ARGUMENT_ERROR, "cannot release handle " + std::to_string(handle) +
                                           ": it is not a block of this shared buffer");
  }
  const auto client = (handle - kHeader - begin) / state_->part_bytes;
  *owner = &part(static_cast<int>(client));
  return r;
}

void PartitionedAllocator::release(Handle handle) {
  Part* owner = nullptr;
  Record* r = checked_record(handle, &owner);
  const auto size = r->size.load(std::memory_order_relaxed);
  std::uint32_t live = 0;
  if (!r->released.compare_exchange_strong(live, 1, std::memory_order_acq_rel)) {
    throw Error(ECLUSE_ARGUMENT_ERROR,
                "cannot release handle " + std::to_string(handle) + ": it was already released");
  }
  owner->live.fetch_sub(size, std::memory_order_relaxed);
  advance_tail(*owner);
  state_->releases.fetch_add(1, std::memory_order_release);
  futex_wake(state_->releases, INT_MAX);
}

std::size_t PartitionedAllocator::capacity(int client) const {
  part(client);  // validates the client
  return state_->part_bytes - kHeader;
}

std::size_t PartitionedAllocator::used() const {
  const auto* parts = reinterpret_cast<const Part*>(state_ + 1);
  std::size_t total = 0;
  for (int c = 0; c < state_->clients; ++c) total += parts[c].live.load(std::memory_order_relaxed);
  return total;
}

std::atomic<std::uint32_t>& PartitionedAllocator::release_counter() {
  return state_->releases;
}

std::unique_ptr<BufferAllocator> make_partitioned_allocator(void* base, std::size_t offset,
                                                            std::size_t size, int clients,
                                                            bool init) {
  return std::make_unique<PartitionedAllocator>(base, offset, size, clients, init);
}

}  // namespace ecluse::shm
