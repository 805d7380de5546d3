// The server loop of a dedicated core.
#include "dc/DedicatedCoreServer.hpp"

#include <algorithm>

#include "core/Process.hpp"
#include "core/RunFailure.hpp"
#include "ecluse/Error.hpp"
#include "server/DrainCheck.hpp"
#include "server/TerminationWatch.hpp"
#include "transport/TransportSupport.hpp"

namespace ecluse {

namespace {
// The longest sleep of the loop. The store thread interrupts it when it stored an iteration, so
// that the loop releases the blocks (room for the clients) at once without polling for them
// (polling every 1 ms while storing cost the dedicated core 12-14% CPU between outputs).
constexpr auto kIdleSlice = std::chrono::milliseconds(100);
}  // namespace

DedicatedCoreServer::DedicatedCoreServer(const Config& config, const Topology& topology,
                                         NodeBuffer& buffer, Writer& writer, EventTable& events,
                                         Log& log, Accounting& accounting)
    : buffer_(buffer),
      log_(log),
      accounting_(accounting),
      index_(topology.plan().server_index[static_cast<std::size_t>(topology.local_rank())]),
      last_check_(std::chrono::steady_clock::now()),
      timeout_(peer_timeout()) {
  const NodePlan& plan = topology.plan();
  forward_ = plan.forward_to[static_cast<std::size_t>(index_)];
  my_clients_ = plan.clients_of(index_);
  // Group signals of a node all go to its first server, which sees every client of the node.
  // With an analysis partner the blocks are handed on in order with the iteration's end, so
  // they are stored on this thread.
  collector_ = std::make_unique<BlockCollector>(
      config, writer, events, log, topology.servers(), static_cast<int>(my_clients_.size()),
      plan.clients, [this](const BlockMessage& e) { hand_on(e); }, forward_ < 0);
  collector_->notify_stored([this] { buffer_.queue(index_).interrupt(); });
  node_clients_ = plan.clients;
  gathers_group_signals_ = index_ == 0 && plan.servers > 1 &&
                           std::any_of(config.events.begin(), config.events.end(),
                                       [](const Event& e) { return e.scope == EventScope::Group; });
}

// The node's first server counts the group signals of every client of the node, not only of
// its own: it serves until all of them stopped (a client of another server may signal after
// this server's own clients stopped), or until one of them is gone.
bool DedicatedCoreServer::serves() const {
  if (stopped_ < static_cast<int>(my_clients_.size())) return true;
  if (!gathers_group_signals_ || node_client_gone_) return false;
  return buffer_.client_stops() < static_cast<std::uint32_t>(runs_ * node_clients_);
}

void DedicatedCoreServer::run() {
  // The signal ends the queue's sleep: the launcher may kill this process soon after.
  ServerSignals signals(
      "dedicated core", *collector_, log_,
      [](void* queue) { static_cast<shm::EventQueue*>(queue)->interrupt(); },
      &buffer_.queue(index_));
  const DrainCheck draining(*collector_, signals);
  try {
    serve(signals);
  } catch (const Error&) {
    if (!signals.signalled()) throw;
    // Its clients died of the signal: the iterations they ended are in the queue already.
    signals.end_after_failure([this] {
      while (auto event = buffer_.queue(index_).try_pop()) handle(*event);
    });
  }
}

void DedicatedCoreServer::serve(ServerSignals& signals) {
  stopped_ = 0;  // a restarted phase counts its clients' Stops again
  collector_->restart();
  ++runs_;
  last_message_ = std::chrono::steady_clock::now();
  while (serves()) {
    signals.check();
    accounting_.set_background_work(collector_->storing());
    accounting_.switch_to(Phase::Idle);
    if (auto event = buffer_.queue(index_).pop(kIdleSlice)) {
      accounting_.switch_to(Phase::Gather);
      handle(*event);
      const bool stored = collector_->collect_stored();
      // A write moves neither count: publishing walks the server's clients, not at every block.
      if (stored || event->type != MessageType::Write) publish_failures();
      // After the handling: storing an iteration may take long, the clients are not silent.
      last_message_ = std::chrono::steady_clock::now();
      continue;
    }
    // Releasing what the store thread stored, and the actions of the signals that waited for
    // it, is work of the server, not idle time.
    if (collector_->storing()) accounting_.switch_to(Phase::Gather);
    if (collector_->collect_stored()) {
      publish_failures();
      last_message_ = std::chrono::steady_clock::now();  // the clients wait for this room
    }
    collector_->receive_broadcasts();
    check_clients(signals.liveness_period());
    check_silence();
  }
  accounting_.switch_to(Phase::Gather);
  signals.clients_stopped();
  while (auto event = buffer_.queue(index_).try_pop()) handle(*event);  // the last group signals
  collector_->flush_unended();
  forward_stops();
  collector_->finish();
  publish_failures();
}

std::uint32_t DedicatedCoreServer::store_failures() const {
  return collector_->failures();
}

std::string DedicatedCoreServer::store_failure() const {
  if (collector_->failures() == 0) return {};
  return store_failure_message("dedicated core", collector_->first_failure(),
                               collector_->failures());
}

// Clients read the count at their next end_iteration, and the first unstored iteration if this
// server dies.
void DedicatedCoreServer::publish_failures() {
  if (const int first = collector_->first_unstored(); first != published_first_) {
    published_first_ = first;
    buffer_.publish_first_unstored(index_, first);
  }
  const std::uint32_t failures = collector_->failures();
  if (failures == published_) return;
  published_ = failures;
  buffer_.publish_store_failures(index_, failures, collector_->first_failure());
}

void DedicatedCoreServer::handle(const BlockMessage& event) {
  switch (event.type) {
    case MessageType::Write:
      return collector_->on_write(event, buffer_.address(event.handle));
    case MessageType::EndIteration:
      collector_->on_end(event);  // hands the iteration's blocks on first, if it completes it
      if (forward_ >= 0) forward(event);
      return;
    case MessageType::Signal:
      return collector_->on_signal(event);
    case MessageType::Stop:
      ++stopped_;
      collector_->on_stop(event);  // forwards the iterations it completes, if any
      if (forward_ < 0) return;
      // The partner counts this client out of later iterations at once; the last Stop waits
      // for the blocks of the iterations stored at the end (forward_stops).
      if (stopped_ < static_cast<int>(my_clients_.size())) return forward(event);
      stops_.push_back(event);
      return;
    default:
      log_.warning("unknown event type ignored");
  }
}

// A storing server with an analysis partner never frees a block: the partner does, once its
// actions ran, so the buffer's back-pressure covers both roles.
void DedicatedCoreServer::hand_on(const BlockMessage& w) {
  if (forward_ >= 0) {
    forward(w);
  } else {
    release(w);
  }
}

// Blocks are handed on without waking the partner: the EndIteration (or Stop) forwarded after
// them does, and the partner's wake-up prediction sees one event per client and iteration.
void DedicatedCoreServer::forward(const BlockMessage& event) {
  const bool wake = event.type != MessageType::Write;
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  while (!buffer_.queue(forward_).push(event, kIdleSlice, wake)) {
    const pid_t pid = buffer_.server_pid(forward_);
    if (process_gone(pid)) {
      throw Error(ECLUSE_CHANNEL_ERROR, "the analysis dedicated core (process " +
                                            std::to_string(pid) +
                                            ") of this node died; the storing core stops.");
    }
    if (std::chrono::steady_clock::now() > deadline) {
      throw Error(ECLUSE_CHANNEL_ERROR,
                  "the analysis dedicated core (process " + std::to_string(pid) +
                      ") of this node took no event for " + std::to_string(timeout_.count()) +
                      " s (ECLUSE_TIMEOUT): its actions may hang; the storing core stops.");
    }
  }
}

// After the last blocks: the analysis server stops once it counted every client's Stop.
void DedicatedCoreServer::forward_stops() {
  for (const BlockMessage& stop : stops_) forward(stop);
  stops_.clear();
}

void DedicatedCoreServer::release(const BlockMessage& w) {
  buffer_.held(w.client) -= shm::block_footprint(w.bytes);
  buffer_.allocator().release(w.handle);
}

// Clients that send nothing for the timeout are blocked (or much slower than the user said).
void DedicatedCoreServer::check_silence() const {
  if (!silence_is_bounded() || collector_->storing()) return;
  if (stopped_ >= static_cast<int>(my_clients_.size())) return;  // waits for other servers' clients
  if (std::chrono::steady_clock::now() - last_message_ < timeout_) return;
  abort_silent_clients("dedicated core", my_clients_.size() - static_cast<std::size_t>(stopped_));
}

void DedicatedCoreServer::check_clients(std::chrono::milliseconds period) {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_check_ < period) return;
  last_check_ = now;
  if (gathers_group_signals_ && stopped_ >= static_cast<int>(my_clients_.size())) {
    for (int client = 0; client < node_clients_; ++client) {
      if (process_gone(buffer_.client_pid(client))) node_client_gone_ = true;  // its server says
    }
  }
  for (int client : my_clients_) {
    const pid_t pid = buffer_.client_pid(client);
    if (process_gone(pid)) {
      const std::string cause = "client process " + std::to_string(pid) +
                                " of this node died without calling stop; the dedicated core "
                                "stops" +
                                collector_->pending_description() + ".";
      const auto [first, last] = collector_->pending_range();
      fail_on_lost_peer({cause, "simulation", -1, pid, first, last});
    }
  }
}

}  // namespace ecluse
