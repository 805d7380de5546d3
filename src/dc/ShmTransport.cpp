// Client side of dedicated cores: allocation with backpressure, copy, notification.
#include "dc/ShmTransport.hpp"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "ecluse/Error.hpp"
#include "shm/Futex.hpp"

namespace ecluse {

namespace {
constexpr auto kSlice = std::chrono::milliseconds(100);

bool process_alive(pid_t pid) {
  return pid <= 0 || kill(pid, 0) == 0 || errno != ESRCH;
}

int variable_index(const Config& config, const Variable* v) {
  return static_cast<int>(v - config.variables.data());
}

template <class T, class U>
void copy_dims(T* out, const std::vector<U>& in) {
  std::copy(in.begin(), in.end(), out);
}
}  // namespace

std::chrono::seconds peer_timeout() {
  const char* env = std::getenv("ECLUSE_TIMEOUT");
  const long seconds = env ? std::strtol(env, nullptr, 10) : 0;
  return std::chrono::seconds(seconds > 0 ? seconds : 600);
}

ShmTransport::ShmTransport(NodeBuffer& buffer, const Config& config, int server, int client,
                           int source, Log& log)
    : buffer_(buffer),
      config_(config),
      server_(server),
      client_(client),
      source_(source),
      log_(log),
      timeout_(peer_timeout()) {}

void ShmTransport::check_alive(std::chrono::steady_clock::time_point deadline,
                               const std::string& what) const {
  const pid_t pid = buffer_.server_pid(server_);
  if (!process_alive(pid)) {
    throw Error(ECLUSE_CHANNEL_ERROR, "the Ecluse server of this node (process " +
                                          std::to_string(pid) + ") is gone while " + what +
                                          "; the run cannot go on: see that server's output.");
  }
  if (std::chrono::steady_clock::now() > deadline) {
    throw Error(ECLUSE_CHANNEL_ERROR, "waited " + std::to_string(timeout_.count()) + " s " + what +
                                          ": the dedicated core does not answer; check "
                                          "its log, or raise ECLUSE_TIMEOUT.");
  }
}

shm::Handle ShmTransport::acquire(const BlockData& block, std::size_t bytes, bool may_skip) {
  shm::BufferAllocator& a = buffer_.allocator();
  if (bytes > a.capacity(client_)) {
    throw Error(ECLUSE_ALLOCATION_ERROR,
                "block " + std::to_string(block.block) + " of variable '" + block.variable->name +
                    "' is " + std::to_string(bytes) + " bytes but the buffer can hold at most " +
                    std::to_string(a.capacity(client_)) +
                    " bytes for this client; raise <buffer size> in the configuration.");
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  while (true) {
    const std::uint32_t seen = a.release_counter().load();
    if (auto handle = a.allocate(client_, bytes)) return *handle;
    if (may_skip && config_.architecture.full_policy == "skip") {
      ++skipped_;
      log_.warning("buffer full: write of variable '" + block.variable->name + "' at iteration " +
                   std::to_string(block.iteration) + " skipped (policy skip, " +
                   std::to_string(skipped_) + " skipped so far)");
      return shm::kNoHandle;
    }
    shm::futex_wait(a.release_counter(), seen, kSlice);
    check_alive(deadline, "waiting for room in the buffer");
  }
}

shm::Event ShmTransport::event_of(shm::EventType type, int iteration) const {
  shm::Event e;
  e.type = type;
  e.iteration = iteration;
  e.source = source_;
  return e;
}

void ShmTransport::notify(const BlockData& block, shm::Handle handle, std::size_t bytes) {
  shm::Event e = event_of(shm::EventType::Write, block.iteration);
  e.variable = variable_index(config_, block.variable);
  e.block = block.block;
  e.ndims = static_cast<std::int32_t>(block.dims.size());
  e.handle = handle;
  e.bytes = bytes;
  copy_dims(e.dims, block.dims);
  copy_dims(e.ghost_lo, block.ghost_lo);
  copy_dims(e.ghost_hi, block.ghost_hi);
  copy_dims(e.global, block.global);
  copy_dims(e.position, block.position);
  push(e, server_);
}

void ShmTransport::push(const shm::Event& event, int server) {
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  while (!buffer_.queue(server).push(event, kSlice)) {
    check_alive(deadline, "waiting for room in the event queue");
  }
}

void ShmTransport::put(const BlockData& block, std::size_t bytes) {
  if (block.dims.size() > static_cast<std::size_t>(shm::kMaxDims)) {
    throw Error(ECLUSE_INVALID_DIMENSIONS, "variable '" + block.variable->name + "' has " +
                                               std::to_string(block.dims.size()) +
                                               " dimensions; dedicated cores handle at most 8.");
  }
  const shm::Handle handle = acquire(block, bytes, true);
  if (handle == shm::kNoHandle) return;
  std::memcpy(buffer_.address(handle), block.data, bytes);
  notify(block, handle, bytes);
}

void* ShmTransport::alloc(const BlockData& block, std::size_t bytes) {
  clear(*block.variable, block.block);
  const shm::Handle handle = acquire(block, bytes, false);
  allocated_[{block.variable, block.block}] = {block, handle, bytes};
  return buffer_.address(handle);
}

void ShmTransport::commit(const Variable& variable, int block) {
  auto it = allocated_.find({&variable, block});
  if (it == allocated_.end()) {
    throw Error(ECLUSE_BLOCK_NOT_FOUND, "commit of block " + std::to_string(block) +
                                            " of variable '" + variable.name +
                                            "': nothing was allocated; call alloc first.");
  }
  notify(it->second.block, it->second.handle, it->second.bytes);
  allocated_.erase(it);
}

void ShmTransport::clear(const Variable& variable, int block) {
  auto it = allocated_.find({&variable, block});
  if (it == allocated_.end()) return;
  buffer_.allocator().release(it->second.handle);
  allocated_.erase(it);
}

void ShmTransport::end_iteration(int iteration) {
  push(event_of(shm::EventType::EndIteration, iteration), server_);
}

bool ShmTransport::signal(const std::string& name, int iteration) {
  const Event* declared = config_.find_event(name);
  shm::Event e = event_of(shm::EventType::Signal, iteration);
  std::strncpy(e.name, name.c_str(), sizeof e.name - 1);
  // Group events are counted by the node's first server, which sees every client of the node.
  push(e, declared && declared->scope == "group" ? 0 : server_);
  return true;
}

void ShmTransport::stop() {
  if (stopped_) return;
  stopped_ = true;
  push(event_of(shm::EventType::Stop, 0), server_);
}

std::size_t ShmTransport::discard() {
  const std::size_t dropped = allocated_.size();
  for (auto& [key, a] : allocated_) buffer_.allocator().release(a.handle);
  allocated_.clear();
  return dropped;
}

}  // namespace ecluse
