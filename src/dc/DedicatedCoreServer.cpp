// The server loop of a dedicated core.
#include "dc/DedicatedCoreServer.hpp"

#include <signal.h>

#include <cerrno>
#include <cstring>

#include "dc/ShmTransport.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {

namespace {
constexpr int kSignalTag = 7301;
constexpr auto kIdleSlice = std::chrono::milliseconds(100);
constexpr auto kLivenessPeriod = std::chrono::seconds(1);

template <class T>
std::vector<T> dims_of(const T* values, int n) {
  return std::vector<T>(values, values + n);
}

bool all_zero(const std::vector<std::uint64_t>& values) {
  for (auto v : values) {
    if (v != 0) return false;
  }
  return true;
}
}  // namespace

DedicatedCoreServer::DedicatedCoreServer(const Config& config, const Topology& topology,
                                         NodeBuffer& buffer, Writer& writer, EventTable& events,
                                         Log& log)
    : config_(config),
      buffer_(buffer),
      writer_(writer),
      events_(events),
      log_(log),
      servers_(topology.servers()),
      index_(topology.plan().server_index[static_cast<std::size_t>(topology.local_rank())]),
      node_clients_(topology.plan().clients),
      last_check_(std::chrono::steady_clock::now()) {
  int servers = 0;
  MPI_Comm_size(servers_, &servers);
  sent_to_.assign(static_cast<std::size_t>(servers), 0);
  received_from_.assign(static_cast<std::size_t>(servers), 0);
  const NodePlan& plan = topology.plan();
  for (std::size_t local = 0; local < plan.roles.size(); ++local) {
    if (plan.roles[local] == Role::Client && plan.server_index[local] == index_) {
      my_clients_.push_back(plan.client_index[local]);
    }
  }
}

void DedicatedCoreServer::run() {
  while (stopped_ < static_cast<int>(my_clients_.size())) {
    if (auto event = buffer_.queue(index_).pop(kIdleSlice)) {
      handle(*event);
      continue;
    }
    receive_broadcasts();
    check_clients();
  }
  if (!iterations_.empty()) {
    log_.warning(std::to_string(iterations_.size()) +
                 " iteration(s) were not ended by every client before stop; storing them as "
                 "they are.");
    while (!iterations_.empty()) flush(iterations_.begin());
  }
  drain_broadcasts();
}

void DedicatedCoreServer::handle(const shm::Event& event) {
  switch (event.type) {
    case shm::EventType::Write:
      return on_write(event);
    case shm::EventType::EndIteration:
      return on_end(event);
    case shm::EventType::Signal:
      return on_signal(event);
    case shm::EventType::Stop:
      ++stopped_;
      return;
    default:
      log_.warning("unknown event type ignored");
  }
}

void DedicatedCoreServer::on_write(const shm::Event& e) {
  const Variable& v = config_.variables.at(static_cast<std::size_t>(e.variable));
  BlockData b;
  b.variable = &v;
  b.type = config_.find_layout(v.layout)->type;
  b.iteration = e.iteration;
  b.source = e.source;
  b.block = e.block;
  b.dims = dims_of(e.dims, e.ndims);
  b.ghost_lo = dims_of(e.ghost_lo, e.ndims);
  b.ghost_hi = dims_of(e.ghost_hi, e.ndims);
  b.global = dims_of(e.global, e.ndims);
  if (all_zero(b.global)) b.global.clear();
  b.position = dims_of(e.position, e.ndims);
  b.data = buffer_.address(e.handle);
  Iteration& it = iterations_[e.iteration];
  it.blocks.push_back(std::move(b));
  it.writes.push_back(e);
}

void DedicatedCoreServer::on_end(const shm::Event& e) {
  ++iterations_[e.iteration].ended;
  flush_complete();
}

void DedicatedCoreServer::flush_complete() {
  const int clients = static_cast<int>(my_clients_.size());
  while (!iterations_.empty() && iterations_.begin()->second.ended >= clients) {
    flush(iterations_.begin());
  }
}

void DedicatedCoreServer::flush(std::map<int, Iteration>::iterator it) {
  try {
    writer_.write_iteration(it->first, it->second.blocks);
  } catch (const Error& e) {
    log_.error("iteration " + std::to_string(it->first) + " was not stored: " + e.what());
  }
  for (const shm::Event& w : it->second.writes) {
    buffer_.held(w.client) -= shm::block_footprint(w.bytes);
    buffer_.allocator().release(w.handle);
  }
  iterations_.erase(it);
}

void DedicatedCoreServer::fire(const std::string& name, int source, int iteration) {
  try {
    events_.fire(name, source, iteration);
  } catch (const Error& e) {
    log_.error("event '" + name + "' from client " + std::to_string(source) + ": " + e.what());
  }
}

void DedicatedCoreServer::on_signal(const shm::Event& e) {
  const std::string name(e.name, strnlen(e.name, sizeof e.name));
  const Event* declared = config_.find_event(name);
  const std::string scope = declared ? declared->scope : "core";
  if (scope == "group") {
    if (++group_counts_[{name, e.iteration}] < node_clients_) return;
    group_counts_.erase({name, e.iteration});
  }
  fire(name, e.source, e.iteration);
  if (scope != "bcast") return;
  int size = 0, me = 0;
  MPI_Comm_size(servers_, &size);
  MPI_Comm_rank(servers_, &me);
  const int message[2] = {e.source, e.iteration};
  for (int other = 0; other < size; ++other) {
    if (other == me) continue;
    ++sent_to_[static_cast<std::size_t>(other)];
    MPI_Send(message, 2, MPI_INT, other, kSignalTag, servers_);
    MPI_Send(name.c_str(), static_cast<int>(name.size()), MPI_CHAR, other, kSignalTag + 1,
             servers_);
  }
}

void DedicatedCoreServer::receive_broadcasts() {
  int pending = 0;
  MPI_Status status;
  MPI_Iprobe(MPI_ANY_SOURCE, kSignalTag, servers_, &pending, &status);
  while (pending) {
    receive_broadcast(status.MPI_SOURCE);
    MPI_Iprobe(MPI_ANY_SOURCE, kSignalTag, servers_, &pending, &status);
  }
}

void DedicatedCoreServer::receive_broadcast(int from) {
  int message[2];
  MPI_Recv(message, 2, MPI_INT, from, kSignalTag, servers_, MPI_STATUS_IGNORE);
  MPI_Status status;
  MPI_Probe(from, kSignalTag + 1, servers_, &status);
  int length = 0;
  MPI_Get_count(&status, MPI_CHAR, &length);
  std::string name(static_cast<std::size_t>(length), '\0');
  MPI_Recv(name.data(), length, MPI_CHAR, from, kSignalTag + 1, servers_, MPI_STATUS_IGNORE);
  ++received_from_[static_cast<std::size_t>(from)];
  fire(name, message[0], message[1]);
}

// Servers learn how many broadcast signals each peer sent them and receive every one before
// leaving, so a signal sent just before a peer's clients stopped is not lost.
void DedicatedCoreServer::drain_broadcasts() {
  std::vector<int> expected(sent_to_.size());
  MPI_Alltoall(sent_to_.data(), 1, MPI_INT, expected.data(), 1, MPI_INT, servers_);
  for (std::size_t from = 0; from < expected.size(); ++from) {
    while (received_from_[from] < expected[from]) receive_broadcast(static_cast<int>(from));
  }
}

void DedicatedCoreServer::check_clients() {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_check_ < kLivenessPeriod) return;
  last_check_ = now;
  for (int client : my_clients_) {
    const pid_t pid = buffer_.client_pid(client);
    if (pid > 0 && kill(pid, 0) != 0 && errno == ESRCH) {
      throw Error(ECLUSE_CHANNEL_ERROR,
                  "client process " + std::to_string(pid) +
                      " of this node died without calling stop; the dedicated core stops.");
    }
  }
}

}  // namespace ecluse
