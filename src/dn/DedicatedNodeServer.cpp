// The server loop of a dedicated node: poll with back-off, receive, store, return credit.
#include "dn/DedicatedNodeServer.hpp"

#include <algorithm>
#include <cstring>

#include "core/Collective.hpp"
#include "core/Process.hpp"
#include "core/RunFailure.hpp"
#include "dn/Backoff.hpp"
#include "ecluse/Error.hpp"
#include "server/DrainCheck.hpp"
#include "server/TerminationWatch.hpp"
#include "transport/TransportSupport.hpp"

namespace ecluse {

namespace {

[[noreturn]] void throw_bad_batch(const BlockMessage& batch, std::int32_t entry) {
  throw Error(ECLUSE_CHANNEL_ERROR,
              "a batch of " + std::to_string(batch.block) + " blocks from client " +
                  std::to_string(batch.source) + " does not hold its block " +
                  std::to_string(entry) +
                  ": the client and this server run different Ecluse builds; rebuild both "
                  "against the same Ecluse.");
}

}  // namespace

DedicatedNodeServer::DedicatedNodeServer(const Config& config, const Topology& topology,
                                         std::uint64_t memory, Writer& writer, EventTable& events,
                                         Log& log, Accounting& accounting)
    : channel_(topology.channel()),
      log_(log),
      accounting_(accounting),
      memory_(memory),
      pool_(memory),
      last_check_(std::chrono::steady_clock::now()),
      timeout_(peer_timeout()) {
  const DedicatedNodePlan& plan = topology.node_plan();
  const int me = topology.world_rank();
  self_ = topology.processes()[static_cast<std::size_t>(me)];
  const auto clients = static_cast<std::size_t>(plan.client_count[static_cast<std::size_t>(me)]);
  peers_.resize(clients);
  pacer_ = PollPacer(clients);
  for (std::size_t r = 0; r < plan.server_of.size(); ++r) {
    if (plan.server_of[r] != me) continue;
    Peer& p = peers_[static_cast<std::size_t>(plan.client_index[r])];
    p.rank = static_cast<int>(r);
    p.process = topology.processes()[r];
  }
  headers_.assign(clients, MPI_REQUEST_NULL);
  completed_.resize(clients);
  for (std::size_t c = 0; c < clients; ++c) {
    channel_.receive_header(peers_[c].slot, peers_[c].rank, &headers_[c]);
  }
  // Group signals count the clients of this server.
  collector_ = std::make_unique<BlockCollector>(
      config, writer, events, log, topology.servers(), static_cast<int>(clients),
      static_cast<int>(clients), [this](const BlockMessage& e) { release(e); });
  collector_->notify_stored([this] { wakeup_.notify(); });
}

DedicatedNodeServer::~DedicatedNodeServer() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  for (MPI_Request& r : headers_) {
    if (r == MPI_REQUEST_NULL) continue;
    MPI_Cancel(&r);
    MPI_Request_free(&r);
  }
}

// A restarted phase: listen to the clients again and return the credit of what was stored after
// their Stop (they were not listening then).
void DedicatedNodeServer::rearm() {
  for (std::size_t c = 0; c < peers_.size(); ++c) {
    Peer& p = peers_[c];
    if (!p.stopped) continue;
    p.stopped = false;
    channel_.receive_header(p.slot, p.rank, &headers_[c]);
    if (p.freed > 0) send_credit(c, p.freed);
    p.freed = 0;
  }
  stopped_ = 0;
  collector_->restart();
}

void DedicatedNodeServer::run() {
  // The signal ends the server's sleep: the launcher may kill this process soon after.
  ServerSignals signals(
      "dedicated node server", *collector_, log_,
      [](void* wakeup) { static_cast<Wakeup*>(wakeup)->notify(); }, &wakeup_);
  const DrainCheck draining(*collector_, signals);
  try {
    serve(signals);
  } catch (const Error&) {
    if (!signals.signalled()) throw;
    // Its clients died of the signal. What MPI holds of them is left: receiving a payload may
    // read the dead client's memory (single copy), which MPI may answer by aborting the job.
    signals.end_after_failure([] {});
  }
}

void DedicatedNodeServer::serve(ServerSignals& signals) {
  rearm();
  last_message_ = std::chrono::steady_clock::now();
  while (stopped_ < peers_.size()) {
    signals.check();
    // The poll itself is counted in the phase before it: switches happen only on a change.
    if (progress()) {
      last_message_ = std::chrono::steady_clock::now();
      accounting_.switch_to(Phase::Gather);
    } else {
      check_silence();
      pause();
    }
    collector_->receive_broadcasts();
    check_clients(signals.liveness_period());
  }
  accounting_.switch_to(Phase::Gather);
  signals.clients_stopped();
  collector_->finish();
  drain_credits();
  log_statistics();
}

// A payload still arriving is received by the polls (MPI progresses it in them): that is gather
// work, not idle time, and polls stay at most 1 ms apart. Otherwise the server is idle: up to
// 8 ms between the messages of an iteration, and between two iterations through most of the
// clients' compute phase (PollPacer: a message sooner than usual waits at most 50 ms); the
// store thread wakes it when an iteration is stored, so its credit goes back at once, and a
// job's ending signal wakes it too.
void DedicatedNodeServer::pause() {
  const bool receiving = receiving_payload();
  accounting_.set_background_work(collector_->storing());
  accounting_.switch_to(receiving ? Phase::Gather : Phase::Idle);
  using State = PollPacer::State;
  const State state = receiving                              ? State::Receiving
                      : collector_->pending_iterations() > 0 ? State::Partial
                                                             : State::Between;
  wakeup_.sleep_for(pacer_.next(state, std::chrono::steady_clock::now()));
}

// The last credit messages (the kBye answers) are small: they complete unless a client died.
void DedicatedNodeServer::drain_credits() {
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  Backoff drain;
  for (complete_credits(); !credits_.empty(); complete_credits()) {
    if (std::chrono::steady_clock::now() > deadline) {
      abort_on_timeout("in stop for " + std::to_string(credits_.size()) +
                       " credit message(s) of the dedicated node to reach its clients: a client "
                       "died or is blocked; see the clients' output.");
    }
    drain.pause();
  }
}

void DedicatedNodeServer::prefault(const std::vector<std::size_t>& block_bytes) {
  std::vector<std::size_t> all;  // one iteration of every client
  for (std::size_t c = 0; c < peers_.size(); ++c) {
    all.insert(all.end(), block_bytes.begin(), block_bytes.end());
  }
  pool_.prefill(all, memory_, "receive memory of the dedicated node");
}

// Clients that send nothing for the timeout are blocked (or much slower than the user said).
void DedicatedNodeServer::check_silence() const {
  if (!silence_is_bounded() || collector_->storing()) return;
  if (std::chrono::steady_clock::now() - last_message_ < timeout_) return;
  abort_silent_clients("dedicated node", peers_.size() - stopped_);
}

// Receiving goes on while the store thread stores the iterations already complete. One round of
// header tests a poll: taking every message that arrived (rounds until none) slowed a client
// writing 2,000 blocks of 64 KiB from 17 to 25 us a block (bench/small_blocks).
bool DedicatedNodeServer::progress() {
  bool any = receive_headers();
  for (std::size_t c = 0; c < peers_.size(); ++c) any = deliver(c) || any;
  any = collector_->collect_stored() || any;
  return_credits();
  complete_credits();
  return any;
}

bool DedicatedNodeServer::receiving_payload() const {
  return std::any_of(peers_.begin(), peers_.end(), [](const Peer& p) {
    return std::any_of(p.queue.begin(), p.queue.end(),
                       [](const Pending& q) { return q.header.type == MessageType::Write; });
  });
}

bool DedicatedNodeServer::receive_headers() {
  int count = 0;
  MPI_Testsome(static_cast<int>(headers_.size()), headers_.data(), &count, completed_.data(),
               MPI_STATUSES_IGNORE);
  if (count == MPI_UNDEFINED || count == 0) return false;
  // Posting a payload's receive may copy it at once (Open MPI's single copy from the client's
  // memory: 3 ms for 16 MiB here): gather work, which would otherwise count as idle time.
  accounting_.switch_to(Phase::Gather);
  for (int i = 0; i < count; ++i) on_header(static_cast<std::size_t>(completed_[i]));
  return true;
}

// Headers of a client arrive in order; its payload receives are posted in the same order, so
// MPI's non-overtaking rule matches each payload with its header.
void DedicatedNodeServer::on_header(std::size_t client) {
  Peer& peer = peers_[client];
  const BlockMessage& header = peer.slot.header;
  pacer_.on_message(std::chrono::steady_clock::now(), client,
                    PollPacer::Micros(static_cast<std::int64_t>(header.since_previous_us)));
  if (header.type == MessageType::Batch) {
    unpack_batch(client);
  } else {
    Pending& p = peer.queue.emplace_back();
    p.header = header;
    p.header.client = static_cast<std::int32_t>(client);
    if (p.header.type == MessageType::Write) {
      p.buffer = acquire(p.header.bytes);
      channel_.receive_payload(p.buffer.data.get(), p.header.bytes, peer.rank, p.payload);
    }
  }
  if (header.type != MessageType::Stop) {
    channel_.receive_header(peer.slot, peer.rank, &headers_[client]);
  }
}

BufferPool::Buffer DedicatedNodeServer::acquire(std::uint64_t bytes) {
  BufferPool::Buffer buffer = pool_.acquire(bytes);
  held_ += bytes;
  peak_held_ = std::max(peak_held_, held_);
  return buffer;
}

// The blocks of a batch (MpiTransport::flush_batch), each complete at once: queued as Writes.
void DedicatedNodeServer::unpack_batch(std::size_t client) {
  Peer& peer = peers_[client];
  const BlockMessage& batch = peer.slot.header;
  const char* entries = peer.slot.payload;
  std::uint64_t at = 0;
  for (std::int32_t i = 0; i < batch.block; ++i) {
    Pending& p = peer.queue.emplace_back();
    if (batch.bytes > kBatchPayload || batch.bytes - at < sizeof p.header) {
      throw_bad_batch(batch, i);
    }
    std::memcpy(&p.header, entries + at, sizeof p.header);
    if (p.header.type != MessageType::Write || p.header.bytes > kBatchedBlock ||
        batch_entry_bytes(p.header.bytes) > batch.bytes - at) {
      throw_bad_batch(batch, i);
    }
    p.header.client = static_cast<std::int32_t>(client);
    p.buffer = acquire(p.header.bytes);
    std::memcpy(p.buffer.data.get(), entries + at + sizeof p.header, p.header.bytes);
    at += batch_entry_bytes(p.header.bytes);
  }
}

bool DedicatedNodeServer::deliver(std::size_t client) {
  auto& queue = peers_[client].queue;
  bool any = false;
  while (!queue.empty() && test_all(queue.front().payload, 2)) {
    handle(client, queue.front());
    queue.pop_front();
    any = true;
  }
  return any;
}

void DedicatedNodeServer::handle(std::size_t client, Pending& p) {
  switch (p.header.type) {
    case MessageType::Write:
      p.header.handle = next_handle_++;
      received_bytes_ += p.header.bytes;
      ++received_blocks_;
      collector_->on_write(p.header, p.buffer.data.get());
      stored_.emplace(p.header.handle, std::move(p.buffer));
      return;
    case MessageType::EndIteration:
      return collector_->on_end(p.header);
    case MessageType::Signal:
      return collector_->on_signal(p.header);
    case MessageType::Stop:
      peers_[client].stopped = true;
      ++stopped_;
      collector_->on_stop(p.header);
      return send_credit(client, kBye);
    default:
      log_.warning("unknown event type ignored");
  }
}

void DedicatedNodeServer::release(const BlockMessage& e) {
  auto it = stored_.find(e.handle);
  pool_.release(std::move(it->second));
  stored_.erase(it);
  held_ -= e.bytes;
  peers_[static_cast<std::size_t>(e.client)].freed += e.bytes;
}

void DedicatedNodeServer::send_credit(std::size_t client, std::uint64_t bytes) {
  Credit& c = credits_.emplace_back();
  c.message.bytes = bytes;
  c.message.store_failures = collector_->failures();
  c.message.first_unstored = static_cast<std::uint64_t>(std::max(0, collector_->first_unstored()));
  if (c.message.store_failures > 0) {
    std::strncpy(c.message.first_failure, collector_->first_failure().c_str(),
                 sizeof c.message.first_failure - 1);
  }
  channel_.send_credit(c.message, peers_[client].rank, &c.request);
  ++credit_messages_;
}

void DedicatedNodeServer::return_credits() {
  for (std::size_t c = 0; c < peers_.size(); ++c) {
    Peer& p = peers_[c];
    // A stopped client no longer listens; its memory simply returns to the pool.
    if (p.freed == 0 || p.stopped) continue;
    send_credit(c, p.freed);
    p.freed = 0;
  }
}

void DedicatedNodeServer::complete_credits() {
  for (auto it = credits_.begin(); it != credits_.end();) {
    it = test_all(&it->request, 1) ? credits_.erase(it) : std::next(it);
  }
}

void DedicatedNodeServer::check_clients(std::chrono::milliseconds period) {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_check_ < period) return;
  last_check_ = now;
  for (const Peer& p : peers_) {
    if (p.stopped || !p.process.same_host_as(self_)) continue;
    const auto pid = p.process.pid;
    if (process_gone(pid)) {
      // Its sends that had not reached this server died with it, though its calls had
      // returned OK: from the first iteration not stored on, nothing of it is known whole.
      const int first = collector_->first_unstored();
      const std::string cause =
          "client process " + std::to_string(pid) + " (world rank " + std::to_string(p.rank) +
          ") died without calling stop; the dedicated node server stops" +
          collector_->pending_description() + "; iteration " + std::to_string(first) +
          " and every later one that this client handed over are not stored (its calls had "
          "returned OK: what had not reached this server died with it).";
      fail_on_lost_peer({cause, "simulation", p.rank, pid, first, -1, true});
    }
  }
}

Statistics DedicatedNodeServer::statistics() const {
  return {{Statistic::DnReceiveMemoryBytes, static_cast<double>(memory_)},
          {Statistic::DnPeakHeldBytes, static_cast<double>(peak_held_)},
          {Statistic::DnReceivedBlocks, static_cast<double>(received_blocks_)},
          {Statistic::DnReceivedBytes, static_cast<double>(received_bytes_)},
          {Statistic::DnCreditMessages, static_cast<double>(credit_messages_)}};
}

void DedicatedNodeServer::log_statistics() const {
  log_.info("dedicated node server: " + std::to_string(received_blocks_) + " block(s), " +
            std::to_string(received_bytes_) + " bytes received from " +
            std::to_string(peers_.size()) + " client(s); peak receive memory " +
            std::to_string(peak_held_) + " of " + std::to_string(memory_) + " bytes; " +
            std::to_string(credit_messages_) + " credit message(s)");
}

std::uint32_t DedicatedNodeServer::store_failures() const {
  return collector_->failures();
}

std::string DedicatedNodeServer::store_failure() const {
  if (collector_->failures() == 0) return {};
  return store_failure_message("dedicated node", collector_->first_failure(),
                               collector_->failures());
}

}  // namespace ecluse
