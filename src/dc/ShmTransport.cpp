// Client side of dedicated cores: allocation with backpressure, copy, notification.
#include "dc/ShmTransport.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>

#include "core/Futex.hpp"
#include "core/Process.hpp"
#include "ecluse/Error.hpp"
#include "transport/TransportSupport.hpp"

namespace ecluse {

namespace {
constexpr auto kSlice = std::chrono::milliseconds(100);
}  // namespace

ShmTransport::ShmTransport(NodeBuffer& buffer, const Config& config, int server, int client,
                           int source, Log& log, Accounting& accounting)
    : buffer_(buffer),
      config_(config),
      server_(server),
      client_(client),
      source_(source),
      log_(log),
      accounting_(accounting),
      timeout_(peer_timeout()),
      streaming_from_(streaming_copy_from(config)) {}

void ShmTransport::check_alive(std::chrono::steady_clock::time_point deadline, const char* what,
                               const char* why) const {
  const pid_t pid = buffer_.server_pid(server_);
  if (process_gone(pid)) {
    fail_on_lost_server("the Ecluse server of this node (process " + std::to_string(pid) +
                            ") is gone while " + what,
                        "; the run cannot go on: see that server's output.", "dedicated-core", -1,
                        pid, handed_, buffer_.first_unstored(server_));
  }
  if (std::chrono::steady_clock::now() > deadline) {
    throw Error(ECLUSE_CHANNEL_ERROR,
                "waited " + std::to_string(timeout_.count()) + " s " + what + ": " +
                    (why ? why : "the dedicated core does not answer; check its log") +
                    ", or raise ECLUSE_TIMEOUT.");
  }
}

shm::Handle ShmTransport::acquire(const BlockData& block, std::size_t bytes, bool may_skip) {
  handed_.note(block.iteration);
  const std::size_t need = shm::block_footprint(bytes);
  const std::size_t share = buffer_.share(client_);
  // Policy skip drops a block for want of room now, never one larger than all the room there is.
  if (held_ + need > share && !(may_skip && skipping() && need <= share)) {
    too_big(block, held_ + need, share);
  }
  shm::BufferAllocator& a = buffer_.allocator();
  std::atomic<std::uint64_t>& held = buffer_.held(client_);
  std::chrono::steady_clock::time_point since;  // set at the first wait: no clock read before
  std::optional<PhaseScope> waiting;
  auto waited = [&] {
    if (waiting) buffer_wait_seconds_ += seconds_since(since);
  };
  bool only_this_iteration = false;  // the last attempt found nothing older held, and
  std::uint32_t releases_then = 0;   // this many releases
  while (true) {
    const std::uint32_t seen = a.release_counter().load();
    if (held.load() + need <= share) {
      if (auto handle = a.allocate(client_, bytes)) {
        held += need;
        held_ += need;
        waited();
        return *handle;
      }
      // A part of its own holds only this client's blocks: when they are all of this iteration
      // (freed once it is stored, after it ends) and no release came through a whole wait, the
      // block can never fit between them.
      if (config_.architecture.allocator == AllocatorKind::Partitioned && held.load() == held_) {
        if (only_this_iteration && releases_then == seen) no_room_in_part(block, need);
        only_this_iteration = true;
        releases_then = seen;
      } else {
        only_this_iteration = false;
      }
    }
    if (may_skip && skipping()) {
      waited();
      return skip(block);
    }
    if (!waiting) {
      waiting.emplace(accounting_, Phase::Wait);
      ++buffer_waits_;
      since = std::chrono::steady_clock::now();
    }
    futex_wait(a.release_counter(), seen, kSlice);
    check_alive(since + timeout_, "waiting for room in the buffer",
                "the dedicated core is alive but freed no room that fits: its stores take longer "
                "than that, or the buffer is too small or too fragmented for the node's "
                "iterations (raise <buffer size>)");
  }
}

void ShmTransport::no_room_in_part(const BlockData& block, std::size_t need) const {
  throw Error(ECLUSE_ALLOCATION_ERROR,
              "iteration " + std::to_string(block.iteration) + ": block " +
                  std::to_string(block.block) + " of variable '" + block.variable->name +
                  "' needs " + std::to_string(need) +
                  " bytes of this client's part of the buffer (allocator=\"partitioned\"), "
                  "and its other blocks of this iteration (" +
                  std::to_string(held_) +
                  " bytes) leave no contiguous room: a part is a ring that no block wraps "
                  "around, and they are freed only once the iteration is stored; " +
                  raise_buffer(config_.architecture, 2 * (held_ + need), buffer_.share(client_),
                               buffer_.clients()) +
                  ", or use allocator=\"general\".");
}

void ShmTransport::check_capacity(const Variable& variable, std::size_t bytes) const {
  const std::size_t need = shm::block_footprint(bytes);
  const std::size_t share = buffer_.share(client_);
  check_block_fits(config_, log_, variable, need, share, "buffer (data and bookkeeping)",
                   source_ == 0, buffer_.clients());
}

void ShmTransport::iteration_blocks_changed(const std::vector<std::size_t>& blocks) {
  iteration_need_ = 0;
  for (const std::size_t bytes : blocks) iteration_need_ += shm::block_footprint(bytes);
}

void ShmTransport::check_iteration_capacity(const std::vector<std::size_t>& blocks) {
  iteration_blocks_changed(blocks);
  const std::size_t need = iteration_need_;
  if (source_ != 0) return;  // said once, by the first client (ecluse-check: every node size)
  warn_iteration_too_big(log_, blocks.size(), need, buffer_.share(client_),
                         "buffer (data and bookkeeping)", config_.architecture, buffer_.clients());
}

// The node's buffer holds the server's final count: it published it before leaving its loop.
std::string ShmTransport::unraised_store_failures(const std::vector<std::uint32_t>& /*failures*/,
                                                  const std::vector<std::string>& /*texts*/) const {
  return unraised_failure(buffer_.store_failures(server_));
}

std::string ShmTransport::unraised_failure(std::uint32_t failures) const {
  if (failures <= failures_seen_) return {};
  return store_failure_message("dedicated core", buffer_.store_failure(server_), failures);
}

void ShmTransport::raise_store_failures() {
  const std::uint32_t failures = buffer_.store_failures(server_);
  std::string message = unraised_failure(failures);
  if (message.empty()) return;
  failures_seen_ = failures;
  throw Error(ECLUSE_IO_ERROR, std::move(message));
}

void ShmTransport::too_big(const BlockData& block, std::size_t need, std::size_t share) const {
  throw_too_big(block, need, share, held_, iteration_need_, "buffer (data and bookkeeping)",
                config_.architecture, buffer_.clients());
}

shm::Handle ShmTransport::skip(const BlockData& block) {
  log_skipped(log_, block, ++skipped_, "buffer full");
  return shm::kNoHandle;
}

bool ShmTransport::skipping() const {
  return config_.architecture.full_policy == FullPolicy::Skip;
}

BlockMessage ShmTransport::event_of(MessageType type, int iteration) const {
  BlockMessage e;
  e.type = type;
  e.iteration = iteration;
  e.source = source_;
  e.client = client_;
  return e;
}

void ShmTransport::release(shm::Handle handle, std::size_t bytes) {
  buffer_.held(client_) -= shm::block_footprint(bytes);
  buffer_.allocator().release(handle);
}

void ShmTransport::notify(const BlockData& block, shm::Handle handle, std::size_t bytes) {
  BlockMessage e = describe_block(config_, block, bytes);
  e.source = source_;
  e.client = client_;
  e.handle = handle;
  // The server acts on blocks only at the end of an iteration: do not pay for waking it now.
  push(e, server_, false);
  ++sent_blocks_;
  sent_bytes_ += bytes;
}

// A full queue is a wait for the server (counted apart from the buffer's: its remedy is
// <queue size>), not part of the write.
void ShmTransport::push(const BlockMessage& event, int server, bool wake) {
  shm::EventQueue& queue = buffer_.queue(server);
  if (queue.push(event, std::chrono::nanoseconds(0), wake)) return;
  const PhaseScope waiting(accounting_, Phase::Wait);
  const auto since = std::chrono::steady_clock::now();
  const auto deadline = since + timeout_;
  ++queue_waits_;
  while (!queue.push(event, kSlice, wake))
    check_alive(deadline, "waiting for room in the event queue");
  queue_wait_seconds_ += seconds_since(since);
}

bool ShmTransport::put(const BlockData& block, std::size_t bytes, const StridedSource* strided) {
  check_dimensions(block, "dedicated cores");
  const shm::Handle handle = acquire(block, bytes, true);
  if (handle == shm::kNoHandle) return false;
  copy_source(buffer_.address(handle), block, strided, bytes, bytes >= streaming_from_);
  notify(block, handle, bytes);
  return true;
}

ShmTransport::Allocated* ShmTransport::allocated(const Variable& variable, int block) {
  auto it = allocated_.find({&variable, block});
  return it != allocated_.end() && it->second.live ? &it->second : nullptr;
}

// On every write: no lookup while nothing is allocated (the usual case).
bool ShmTransport::allocated_now(const Variable& variable, int block) const {
  if (live_ == 0) return false;
  const auto it = allocated_.find({&variable, block});
  return it != allocated_.end() && it->second.live;
}

void* ShmTransport::alloc(const BlockData& block, std::size_t bytes) {
  clear(*block.variable, block.block);
  const shm::Handle handle = acquire(block, bytes, false);
  Allocated& a = allocated_[{block.variable, block.block}];  // a new node the first time only
  a.block = block;
  a.handle = handle;
  a.bytes = bytes;
  a.live = true;
  ++live_;
  return buffer_.address(handle);
}

void ShmTransport::commit(const Variable& variable, int block) {
  Allocated* a = allocated(variable, block);
  if (!a) throw_not_allocated(variable, block);
  notify(a->block, a->handle, a->bytes);
  a->live = false;
  --live_;
}

void ShmTransport::clear(const Variable& variable, int block) {
  Allocated* a = allocated(variable, block);
  if (!a) return;
  release(a->handle, a->bytes);
  held_ -= shm::block_footprint(a->bytes);
  a->live = false;
  --live_;
}

void ShmTransport::end_iteration(int iteration) {
  held_ = 0;
  handed_.note(iteration);
  if (const auto now = std::chrono::steady_clock::now(); server_checks_.due(now)) {
    check_alive(now + timeout_, "the client ended an iteration");
  }
  push(event_of(MessageType::EndIteration, iteration), server_);
}

bool ShmTransport::signal(const std::string& name, int iteration) {
  const Event* declared = config_.find_event(name);
  BlockMessage e = event_of(MessageType::Signal, iteration);
  std::strncpy(e.name, name.c_str(), sizeof e.name - 1);
  // Group events are counted by the node's first server, which sees every client of the node.
  push(e, declared && declared->scope == EventScope::Group ? 0 : server_);
  return true;
}

void ShmTransport::stop() {
  if (stopped_) return;
  stopped_ = true;
  push(event_of(MessageType::Stop, 0), server_);
  buffer_.count_client_stop();
  // A client that never waited would not have noticed; it must not call this run a success.
  const pid_t pid = buffer_.server_pid(server_);
  if (process_gone(pid)) {
    fail_on_lost_server(
        "the Ecluse server of this node (process " + std::to_string(pid) + ") is gone at stop",
        "; see that server's output.", "dedicated-core", -1, pid, handed_,
        buffer_.first_unstored(server_));
  }
}

Statistics ShmTransport::statistics() const {
  return {{Statistic::DcWindowBytes, static_cast<double>(buffer_.share(client_))},
          {Statistic::DcBufferWaits, static_cast<double>(buffer_waits_)},
          {Statistic::DcBufferWaitSeconds, buffer_wait_seconds_},
          {Statistic::DcSentBlocks, static_cast<double>(sent_blocks_)},
          {Statistic::DcSentBytes, static_cast<double>(sent_bytes_)},
          {Statistic::DcSkippedBlocks, static_cast<double>(skipped_)},
          {Statistic::DcQueueWaits, static_cast<double>(queue_waits_)},
          {Statistic::DcQueueWaitSeconds, queue_wait_seconds_}};
}

// At every end_iteration: no walk over the blocks ever allocated while none is live.
std::size_t ShmTransport::discard() {
  const std::size_t dropped = live_;
  if (dropped == 0) return 0;
  for (auto& [key, a] : allocated_) {
    if (a.live) release(a.handle, a.bytes);
    a.live = false;
  }
  live_ = 0;
  return dropped;
}

}  // namespace ecluse
