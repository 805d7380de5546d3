// Both allocators shared by processes, as on a node: forked clients allocate, write patterns and
// notify through the event queue while this process (the server) checks and releases, in any
// order; a client blocked on a full buffer sleeps on release_counter until a release.
#include <pthread.h>

#include <atomic>
#include <cstring>
#include <random>
#include <thread>

#include "ShmTestSupport.hpp"
#include "core/Futex.hpp"
#include "ecluse/Error.hpp"
#include "shm/BufferAllocator.hpp"
#include "shm/EventQueue.hpp"

namespace ecluse::shm {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kQueueCapacity = 64;

class AllocatorProcessTest : public test::ShmTest,
                             public ::testing::WithParamInterface<std::string> {
 protected:
  const std::string& kind() const { return GetParam(); }
};

unsigned char pattern(int client, int block, std::size_t k) {
  return static_cast<unsigned char>(client * 131 + block * 7 + static_cast<int>(k));
}

// Backpressure as a client does it: read the counter before trying, so that a release between
// the failed attempt and the sleep changes the word and the sleep returns at once.
std::optional<Handle> allocate_waiting(BufferAllocator& alloc, int client, std::size_t bytes) {
  for (;;) {
    const auto seen = alloc.release_counter().load(std::memory_order_acquire);
    if (auto h = alloc.allocate(client, bytes)) return h;
    if (!futex_wait(alloc.release_counter(), seen, 10s)) return std::nullopt;
  }
}

struct ClientRun {
  std::string kind;
  void* base;
  std::size_t offset;
  std::size_t size;
  int clients;
  int client;
  int blocks;
  std::size_t max_bytes;

  int operator()() const {
    auto alloc = test::make_allocator(kind, base, offset, size, clients, false);
    auto queue = EventQueue::attach(base);
    std::mt19937 rng(static_cast<unsigned>(client));
    for (int i = 0; i < blocks; ++i) {
      const std::size_t bytes = rng() % max_bytes;
      const auto h = allocate_waiting(*alloc, client, bytes);
      if (!h) return 2;
      auto* data = static_cast<unsigned char*>(base) + *h;
      for (std::size_t k = 0; k < bytes; ++k) data[k] = pattern(client, i, k);
      BlockMessage e;
      e.source = client;
      e.iteration = i;
      e.handle = *h;
      e.bytes = bytes;
      if (!queue.push(e, 10s)) return 3;
    }
    BlockMessage stop;
    stop.type = MessageType::Stop;
    stop.source = client;
    return queue.push(stop, 10s) ? 0 : 4;
  }
};

bool intact(const test::Buffer& buffer, const BlockMessage& e) {
  const auto* data = reinterpret_cast<const unsigned char*>(buffer.at(e.handle));
  for (std::size_t k = 0; k < e.bytes; ++k) {
    if (data[k] != pattern(e.source, e.iteration, k)) return false;
  }
  return true;
}

TEST_P(AllocatorProcessTest, ClientsWriteWhileTheServerReleasesInAnyOrder) {
  constexpr int kClients = 2;
  constexpr int kBlocks = 1500;
  const auto lead = EventQueue::footprint(kQueueCapacity);
  auto buffer = test::make_buffer(kind(), kClients, kClients * 32 * 1024, lead);
  auto queue = EventQueue::create(buffer.segment.base(), kQueueCapacity);
  std::vector<pid_t> children;
  for (int c = 0; c < kClients; ++c) {
    children.push_back(test::spawn(ClientRun{kind(), buffer.segment.base(), buffer.offset,
                                             buffer.size, kClients, c, kBlocks, 6000}));
  }
  std::mt19937 rng(7);
  std::vector<BlockMessage> held;  // released late and out of order, as a busy server would
  std::vector<int> next(kClients, 0);
  int stopped = 0;
  const auto deadline = test::now_ns() + 15'000'000'000u;
  while (stopped < kClients && test::now_ns() < deadline) {
    const auto e = queue.pop(20ms);
    if (!e || held.size() > 6) {  // idle or holding enough: give space back
      std::shuffle(held.begin(), held.end(), rng);
      const auto keep = e ? held.size() / 2 : 0;
      for (std::size_t i = keep; i < held.size(); ++i) buffer.allocator->release(held[i].handle);
      held.resize(keep);
    }
    if (!e) continue;
    if (e->type == MessageType::Stop) {
      ++stopped;
      continue;
    }
    ASSERT_EQ(e->iteration, next[e->source]++) << "client " << e->source;
    ASSERT_TRUE(intact(buffer, *e)) << "block " << e->iteration << " of " << e->source;
    held.push_back(*e);
  }
  for (const auto& e : held) buffer.allocator->release(e.handle);
  for (const pid_t child : children) EXPECT_EQ(test::wait_child(child), 0);
  EXPECT_EQ(stopped, kClients);
  EXPECT_EQ(next, std::vector<int>(kClients, kBlocks));
  EXPECT_EQ(buffer.allocator->used(), 0u);
}

TEST_P(AllocatorProcessTest, AReleaseWakesAClientWaitingForSpace) {
  const auto lead = std::size_t{64};  // a "ready" flag for the child
  auto buffer = test::make_buffer(kind(), 1, 8 * 1024, lead);
  auto* ready = new (buffer.segment.base()) std::atomic<std::uint32_t>(0);
  std::vector<Handle> blocks;
  while (auto h = buffer.allocator->allocate(0, 1000)) blocks.push_back(*h);
  const auto before = buffer.allocator->release_counter().load();
  void* base = buffer.segment.base();
  const pid_t child = test::spawn([&, base] {
    auto alloc = test::make_allocator(kind(), base, lead, buffer.size, 1, false);
    const auto seen = alloc->release_counter().load();
    if (alloc->allocate(0, 1000)) return 1;  // the buffer must be full
    ready->store(1);
    if (!futex_wait(alloc->release_counter(), seen, 5s)) return 2;
    return allocate_waiting(*alloc, 0, 1000) ? 0 : 3;
  });
  while (ready->load() == 0) std::this_thread::sleep_for(1ms);
  std::this_thread::sleep_for(50ms);  // let the child reach futex_wait
  buffer.allocator->release(blocks.front());
  EXPECT_EQ(test::wait_child(child), 0);
  EXPECT_EQ(buffer.allocator->release_counter().load(), before + 1);
}

INSTANTIATE_TEST_SUITE_P(Kinds, AllocatorProcessTest, ::testing::Values("general", "partitioned"));

// A client killed inside the allocator's critical section. The test knows the layout of the
// state (GeneralAllocator.cpp): an 8-byte magic, then the robust mutex.
class RobustMutexTest : public test::ShmTest {
 protected:
  test::Buffer buffer_ = test::make_buffer("general", 1, 16 * 1024);
  pthread_mutex_t* mutex() { return reinterpret_cast<pthread_mutex_t*>(buffer_.at(8)); }

  // The child dies holding the mutex, after `damage` ran.
  template <class Damage>
  void die_holding_the_mutex(Damage damage) {
    const pid_t child = test::spawn([this, damage] {
      if (pthread_mutex_lock(mutex()) != 0) return 1;
      damage();
      ::_exit(0);
      return 0;
    });
    ASSERT_EQ(test::wait_child(child), 0);
  }
};

TEST_F(RobustMutexTest, ADeadOwnerDoesNotBlockTheNode) {
  auto& alloc = *buffer_.allocator;
  const auto a = alloc.allocate(0, 1000).value();
  const auto b = alloc.allocate(0, 2000).value();
  alloc.release(a);
  // Died half-way through a free-list update: the links of the free block `a` are garbage
  // (bytes 16-31 of a block header), which best fit would follow without the repair.
  die_holding_the_mutex([this, a] { std::memset(buffer_.at(a - 64 + 16), 0x5a, 16); });
  EXPECT_EQ(alloc.allocate(0, 500), a);  // EOWNERDEAD: repaired, then served
  EXPECT_EQ(alloc.used(), test::footprint(500) + test::footprint(2000));
  alloc.release(a);
  alloc.release(b);
  EXPECT_EQ(alloc.used(), 0u);
  EXPECT_TRUE(alloc.allocate(0, alloc.capacity(0)));
}

TEST_F(RobustMutexTest, ATornHeaderStopsEveryProcessWithAClearError) {
  auto& alloc = *buffer_.allocator;
  const auto a = alloc.allocate(0, 1000).value();
  die_holding_the_mutex([this, a] { std::memset(buffer_.at(a - 64), 0, 64); });
  for (int attempt = 0; attempt < 2; ++attempt) {  // the first finds it, later ones too
    try {
      alloc.allocate(0, 100);
      FAIL() << "allocated in a corrupt buffer";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), ECLUSE_CHANNEL_ERROR);
      EXPECT_NE(std::string(e.what()).find("restart the job"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace ecluse::shm
