// Best-fit allocation in the shared buffer. Blocks tile the data area; each starts with a 64-byte
// header (size, size of the physical predecessor, free-list links as offsets) so that the
// payload stays 64-byte aligned and a released block merges with free neighbours in O(1).
#include "shm/GeneralAllocator.hpp"

#include <pthread.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <new>

#include "core/Futex.hpp"
#include "ecluse/Error.hpp"
#include "shm/PartitionedAllocator.hpp"

namespace ecluse::shm {

namespace {

constexpr std::uint64_t kAlign = 64;
constexpr std::uint64_t kNone = ~std::uint64_t{0};
constexpr std::uint64_t kStateMagic = 0x45434c5553454741;  // "ECLUSEGA"
constexpr std::uint32_t kBlockMagic = 0xb10cb10c;

constexpr std::uint64_t round_up(std::uint64_t n) {
  return (n + kAlign - 1) / kAlign * kAlign;
}

}  // namespace

struct alignas(kAlign) GeneralAllocator::Block {
  std::uint64_t size;       // whole block, header included
  std::uint64_t prev_size;  // physical predecessor; 0 for the first block
  std::uint64_t next_free;  // offsets from the segment base, kNone at the ends
  std::uint64_t prev_free;
  std::uint32_t magic;
  std::uint32_t in_use;
};

struct alignas(kAlign) GeneralAllocator::State {
  std::atomic<std::uint64_t> magic;
  pthread_mutex_t mutex;
  std::uint64_t begin;  // offset of the first block
  std::uint64_t bytes;  // bytes covered by blocks
  std::uint64_t free_head;
  std::atomic<std::uint64_t> used;  // written under the mutex, read without it
  alignas(kAlign) std::atomic<std::uint32_t> releases;
};

static_assert(sizeof(GeneralAllocator::Block) == kAlign);
static_assert(std::atomic<std::uint64_t>::is_always_lock_free);

namespace {

constexpr std::uint64_t kHeader = sizeof(GeneralAllocator::Block);

[[noreturn]] void corrupt(const std::string& what) {
  throw Error(ECLUSE_CHANNEL_ERROR,
              "the general allocator of the shared buffer is corrupt (" + what +
                  "): a process died while allocating or releasing; restart the job");
}

// Holds the robust mutex. EOWNERDEAD means a process died holding it; the repair callback
// rebuilds what it may have left half-done before the mutex is marked consistent.
class Lock {
 public:
  template <class Repair>
  Lock(pthread_mutex_t* mutex, Repair repair) : mutex_(mutex) {
    const int rc = pthread_mutex_lock(mutex_);
    if (rc == EOWNERDEAD) {
      recover(repair);
    } else if (rc != 0) {
      corrupt(std::string("pthread_mutex_lock: ") + std::strerror(rc));
    }
  }
  ~Lock() { pthread_mutex_unlock(mutex_); }
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;

 private:
  template <class Repair>
  void recover(Repair repair) {
    try {
      repair();
    } catch (...) {
      // Unlocking without pthread_mutex_consistent makes the mutex unusable (ENOTRECOVERABLE),
      // so every other process gets this error instead of using a broken heap.
      pthread_mutex_unlock(mutex_);
      throw;
    }
    pthread_mutex_consistent(mutex_);
  }
  pthread_mutex_t* mutex_;
};

void init_mutex(pthread_mutex_t* mutex) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  int rc = pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
  if (rc == 0) rc = pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
  if (rc == 0) rc = pthread_mutex_init(mutex, &attr);
  pthread_mutexattr_destroy(&attr);
  if (rc != 0) {
    throw Error(ECLUSE_ALLOCATION_ERROR,
                std::string("cannot create the process-shared mutex of the shared buffer: ") +
                    std::strerror(rc) + "; this system lacks robust process-shared mutexes");
  }
}

}  // namespace

// kAlign - 1: the worst slack when the region does not start on a 64-byte boundary.
std::size_t GeneralAllocator::overhead() {
  return sizeof(State) + kAlign - 1;
}

GeneralAllocator::GeneralAllocator(void* base, std::size_t offset, std::size_t size, bool init)
    : base_(static_cast<char*>(base)) {
  const auto address = reinterpret_cast<std::uintptr_t>(base_) + offset;
  const std::uint64_t start = offset + (round_up(address) - address);
  const std::uint64_t end = offset + size;
  if (end < start + sizeof(State) + 2 * kHeader) {
    throw Error(ECLUSE_ALLOCATION_ERROR,
                "the shared buffer (" + std::to_string(size) +
                    " bytes) is too small for the general allocator, which needs " +
                    std::to_string(overhead() + 2 * kHeader) +
                    " bytes at least; raise the buffer size in the configuration");
  }
  state_ = reinterpret_cast<State*>(base_ + start);
  const std::uint64_t begin = start + sizeof(State);
  const std::uint64_t bytes = (end - begin) / kAlign * kAlign;
  if (init) {
    format(begin, bytes);
  } else if (state_->magic.load(std::memory_order_acquire) != kStateMagic ||
             state_->begin != begin || state_->bytes != bytes) {
    throw Error(ECLUSE_CHANNEL_ERROR,
                "no general allocator at offset " + std::to_string(offset) +
                    " of the shared segment: the dedicated core has not formatted it yet, or "
                    "client and server disagree on the buffer layout (same configuration?)");
  }
}

void GeneralAllocator::format(std::uint64_t begin, std::uint64_t bytes) {
  auto* state = new (state_) State{};
  init_mutex(&state->mutex);
  state->begin = begin;
  state->bytes = bytes;
  Block* first = new (base_ + begin) Block{bytes, 0, kNone, kNone, kBlockMagic, 0};
  state->free_head = kNone;
  push_free(first);
  // Published last: an attaching process sees a complete allocator or none.
  state->magic.store(kStateMagic, std::memory_order_release);
}

GeneralAllocator::Block* GeneralAllocator::block(std::uint64_t offset) const {
  return reinterpret_cast<Block*>(base_ + offset);
}

std::uint64_t GeneralAllocator::offset_of(const Block* b) const {
  return static_cast<std::uint64_t>(reinterpret_cast<const char*>(b) - base_);
}

GeneralAllocator::Block* GeneralAllocator::next_of(const Block* b) const {
  const auto next = offset_of(b) + b->size;
  return next < state_->begin + state_->bytes ? block(next) : nullptr;
}

void GeneralAllocator::resize(Block* b, std::uint64_t size) {
  b->size = size;
  if (Block* next = next_of(b)) next->prev_size = size;
}

void GeneralAllocator::push_free(Block* b) {
  b->in_use = 0;
  b->prev_free = kNone;
  b->next_free = state_->free_head;
  if (b->next_free != kNone) block(b->next_free)->prev_free = offset_of(b);
  state_->free_head = offset_of(b);
}

void GeneralAllocator::unlink_free(Block* b) {
  if (b->prev_free != kNone) {
    block(b->prev_free)->next_free = b->next_free;
  } else {
    state_->free_head = b->next_free;
  }
  if (b->next_free != kNone) block(b->next_free)->prev_free = b->prev_free;
}

// Smallest free block that fits; an exact fit ends the search early.
std::uint64_t GeneralAllocator::best_fit(std::uint64_t need) const {
  std::uint64_t best = kNone;
  std::uint64_t best_size = kNone;
  for (auto at = state_->free_head; at != kNone; at = block(at)->next_free) {
    const auto size = block(at)->size;
    if (size < need || size >= best_size) continue;
    best = at;
    best_size = size;
    if (size == need) break;
  }
  return best;
}

// Any rest worth a header becomes a free block, so a used block is exactly header + payload.
void GeneralAllocator::split(Block* b, std::uint64_t need) {
  const auto rest = b->size - need;
  if (rest < kHeader) return;
  resize(b, need);
  auto* tail = new (base_ + offset_of(b) + need) Block{0, need, kNone, kNone, kBlockMagic, 0};
  resize(tail, rest);
  push_free(tail);
}

// Free neighbours are never adjacent, so one merge on each side restores that invariant.
GeneralAllocator::Block* GeneralAllocator::coalesce(Block* b) {
  Block* next = next_of(b);
  if (next != nullptr && next->in_use == 0) {
    unlink_free(next);
    resize(b, b->size + next->size);
    next->magic = 0;  // a stale handle to the absorbed block must not look valid
  }
  if (b->prev_size != 0) {
    Block* prev = block(offset_of(b) - b->prev_size);
    if (prev->in_use == 0) {
      unlink_free(prev);
      resize(prev, prev->size + b->size);
      b->magic = 0;
      b = prev;
    }
  }
  return b;
}

// NodeBuffer places the allocator 64-byte aligned with its overhead added to <buffer size>:
// the region holds the buffer size rounded up to 64 bytes, less one block header (general), or
// that split into 64-byte aligned parts, each less one header (partitioned).
std::size_t client_share(AllocatorKind kind, std::size_t buffer_size, int clients) {
  const auto count = static_cast<std::size_t>(std::max(clients, 1));
  const std::size_t region = (buffer_size + kAlign - 1) / kAlign * kAlign;
  if (kind == AllocatorKind::Partitioned) {
    const std::size_t part = (buffer_size + kAlign - 1) / count / kAlign * kAlign;
    return part > kHeader ? part - kHeader : 0;
  }
  return region > kHeader ? (region - kHeader) / count : 0;
}

std::uint64_t buffer_size_for(AllocatorKind kind, std::uint64_t need, int clients) {
  const auto count = static_cast<std::uint64_t>(std::max(clients, 1));
  if (kind == AllocatorKind::Partitioned) {
    return count * ((need + kHeader + kAlign - 1) / kAlign * kAlign);
  }
  return (need * count + kAlign - 1) / kAlign * kAlign + kHeader;
}

void refuse_if_never_fits(int client, std::size_t bytes, std::size_t capacity, const char* room,
                          const char* fix) {
  if (bytes <= capacity) return;
  throw Error(ECLUSE_ALLOCATION_ERROR, "client " + std::to_string(client) +
                                           " asked for a block of " + std::to_string(bytes) +
                                           " bytes but " + std::string(room) + " " +
                                           std::to_string(capacity) + " bytes at most; " + fix);
}

std::optional<Handle> GeneralAllocator::allocate(int client, std::size_t bytes) {
  refuse_if_never_fits(client, bytes, capacity(client), "the shared buffer can hold",
                       "raise the buffer size in the configuration");
  const std::uint64_t need = kHeader + round_up(bytes);
  Lock lock(&state_->mutex, [this] { rebuild(); });
  const auto at = best_fit(need);
  if (at == kNone) return std::nullopt;
  Block* b = block(at);
  unlink_free(b);
  split(b, need);
  b->in_use = 1;
  state_->used.fetch_add(b->size, std::memory_order_relaxed);
  return at + kHeader;
}

GeneralAllocator::Block* GeneralAllocator::checked_block(Handle handle) const {
  // A 0-byte block at the very end has its handle at the end of the area: check the header.
  const bool inside = handle >= state_->begin + kHeader &&
                      handle - kHeader < state_->begin + state_->bytes &&
                      (handle - state_->begin) % kAlign == 0;
  Block* b = inside ? block(handle - kHeader) : nullptr;
  if (b == nullptr || b->magic != kBlockMagic || b->in_use != 1) {
    throw Error(ECLUSE_ARGUMENT_ERROR,
                "cannot release handle " + std::to_string(handle) +
                    ": it is not a block in use of this shared buffer (released twice, or "
                    "allocated elsewhere)");
  }
  return b;
}

void GeneralAllocator::release(Handle handle) {
  {
    Lock lock(&state_->mutex, [this] { rebuild(); });
    Block* b = checked_block(handle);
    state_->used.fetch_sub(b->size, std::memory_order_relaxed);
    b->in_use = 0;
    push_free(coalesce(b));
  }
  state_->releases.fetch_add(1, std::memory_order_release);
  futex_wake(state_->releases, INT_MAX);
}

// After a process died holding the mutex, the block sizes are the truth: walk them (which
// fails if the death tore a header) and rebuild the free list and `used` from scratch.
void GeneralAllocator::rebuild() {
  state_->free_head = kNone;
  std::uint64_t used = 0;
  std::uint64_t prev_size = 0;
  const auto end = state_->begin + state_->bytes;
  for (auto at = state_->begin; at != end; at += prev_size) {
    Block* b = block(at);
    const bool sane = b->magic == kBlockMagic && b->prev_size == prev_size && b->size >= kHeader &&
                      b->size % kAlign == 0 && b->size <= end - at;
    if (!sane) corrupt("torn block header at offset " + std::to_string(at));
    if (b->in_use != 0) used += b->size;
    prev_size = b->size;
  }
  Block* last_free = nullptr;  // the free block just before `at`, already in the list
  for (auto at = state_->begin; at != end; at += block(at)->size) {
    Block* b = block(at);
    if (b->in_use != 0) {
      last_free = nullptr;
    } else if (last_free != nullptr) {
      resize(last_free, last_free->size + b->size);
      b->magic = 0;
    } else {
      push_free(b);
      last_free = b;
    }
  }
  state_->used.store(used, std::memory_order_relaxed);
}

std::size_t GeneralAllocator::capacity(int /*client*/) const {
  return state_->bytes - kHeader;
}

std::size_t GeneralAllocator::used() const {
  return state_->used.load(std::memory_order_relaxed);
}

std::atomic<std::uint32_t>& GeneralAllocator::release_counter() {
  return state_->releases;
}

std::unique_ptr<BufferAllocator> make_general_allocator(void* base, std::size_t offset,
                                                        std::size_t size, bool init) {
  return std::make_unique<GeneralAllocator>(base, offset, size, init);
}

// The kinds are listed here, next to the default one.
std::size_t allocator_overhead(AllocatorKind kind, int clients) {
  if (kind == AllocatorKind::Partitioned) return PartitionedAllocator::overhead(clients);
  return GeneralAllocator::overhead();
}

std::unique_ptr<BufferAllocator> make_allocator(AllocatorKind kind, void* base, std::size_t offset,
                                                std::size_t size, int clients, bool init) {
  if (kind == AllocatorKind::Partitioned) {
    return make_partitioned_allocator(base, offset, size, clients, init);
  }
  return make_general_allocator(base, offset, size, init);
}

}  // namespace ecluse::shm
