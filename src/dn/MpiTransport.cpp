// Client side of dedicated nodes: credit-based admission, outgoing copies, non-blocking sends.
#include "dn/MpiTransport.hpp"

#include <algorithm>
#include <cstring>

#include "core/Process.hpp"
#include "dn/Backoff.hpp"
#include "ecluse/Error.hpp"
#include "transport/TransportSupport.hpp"

namespace ecluse {

MpiTransport::MpiTransport(const Config& config, const Topology& topology, std::uint64_t window,
                           int source, Log& log, Accounting& accounting)
    : config_(config),
      channel_(topology.channel()),
      server_(topology.node_plan().server_of[static_cast<std::size_t>(topology.world_rank())]),
      server_process_(topology.processes()[static_cast<std::size_t>(server_)]),
      server_local_(server_process_.same_host_as(
          topology.processes()[static_cast<std::size_t>(topology.world_rank())])),
      source_(source),
      log_(log),
      accounting_(accounting),
      timeout_(peer_timeout()),
      pool_(window),
      window_(window),
      credit_(window),
      lowest_credit_(window),
      streaming_from_(streaming_copy_from(config)) {
  channel_.receive_credit(credit_message_, server_, &credit_request_);
}

MpiTransport::~MpiTransport() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized || credit_request_ == MPI_REQUEST_NULL) return;
  // Only after an error: the server will not answer any more.
  MPI_Cancel(&credit_request_);
  MPI_Request_free(&credit_request_);
}

void MpiTransport::prefault(const std::vector<std::size_t>& block_bytes) {
  pool_.prefill(block_bytes, window_,
                "outgoing message memory (this client's share of the "
                "dedicated node's receive memory)");
}

void MpiTransport::progress() {
  collect_credits();
  complete_sends();
}

void MpiTransport::collect_credits() {
  while (credit_request_ != MPI_REQUEST_NULL && test_all(&credit_request_, 1)) {
    server_failures_ = std::max(server_failures_, credit_message_.store_failures);
    server_first_unstored_ = static_cast<int>(credit_message_.first_unstored);
    if (credit_message_.store_failures > 0 && server_failure_.empty()) {
      server_failure_ = credit_message_.first_failure;  // the server's first: it never changes
    }
    if (credit_message_.bytes == kBye) {
      bye_ = true;
      return;
    }
    credit_ += credit_message_.bytes;
    channel_.receive_credit(credit_message_, server_, &credit_request_);
  }
}

// The credit messages stop at the Bye: failures after it reach the client here (server_ is a
// rank of the initialize communicator).
std::string MpiTransport::unraised_store_failures(const std::vector<std::uint32_t>& failures,
                                                  const std::vector<std::string>& texts) const {
  const auto server = static_cast<std::size_t>(server_);
  if (server >= failures.size() || failures[server] <= failures_seen_) return {};
  return texts[server];
}

void MpiTransport::raise_store_failures() {
  collect_credits();
  if (server_failures_ <= failures_seen_) return;
  failures_seen_ = static_cast<std::uint32_t>(server_failures_);
  throw Error(ECLUSE_IO_ERROR,
              store_failure_message("dedicated node",
                                    server_failure_.empty()
                                        ? "an iteration (its log names the store and the cause)"
                                        : server_failure_,
                                    failures_seen_));
}

// Oldest first, up to the first send still going: testing every send of an iteration at every
// write cost O(n) per write (10,000 blocks an iteration: 25% of a write). Sends to one server
// mostly complete in order; a later one done before an earlier (an eager send behind a
// rendezvous one) keeps its buffer a little longer, and acquire allocates meanwhile.
void MpiTransport::complete_sends() {
  while (!in_flight_.empty() && test_all(in_flight_.front().requests, 3)) {
    InFlight& done = in_flight_.front();
    if (done.committed) {
      committed_.push_back(std::move(done.buffer));
    } else {
      pool_.release(std::move(done.buffer));
    }
    done.committed = false;
    spare_.splice(spare_.end(), in_flight_, in_flight_.begin());
  }
}

void MpiTransport::check_server(std::chrono::steady_clock::time_point deadline,
                                const std::string& what) {
  const auto pid = server_process_.pid;
  if (server_local_ && process_gone(pid)) {
    fail_on_lost_server("the Ecluse server of this client (world rank " + std::to_string(server_) +
                            ", process " + std::to_string(pid) + ") is gone while " + what,
                        "; the run cannot go on: see that server's output.", "dedicated-node",
                        server_, pid, handed_, server_first_unstored_);
  }
  if (std::chrono::steady_clock::now() > deadline) {
    throw Error(ECLUSE_CHANNEL_ERROR,
                "waited " + std::to_string(timeout_.count()) + " s " + what +
                    ": the dedicated node server (world rank " + std::to_string(server_) +
                    ") does not answer; check its log, or raise ECLUSE_TIMEOUT.");
  }
}

bool MpiTransport::skipping() const {
  return config_.architecture.full_policy == FullPolicy::Skip;
}

void MpiTransport::check_fits(const BlockData& block, std::size_t need, bool may_skip) const {
  // Policy skip drops a block for want of credit now, never one larger than the whole window.
  if (held_ + need <= window_ || (may_skip && skipping() && need <= window_)) return;
  throw_too_big(block, held_ + need, window_, held_, iteration_need_,
                "the dedicated node's receive memory", config_.architecture);
}

void MpiTransport::check_capacity(const Variable& variable, std::size_t bytes) const {
  check_block_fits(config_, log_, variable, bytes, window_, "the dedicated node's receive memory",
                   source_ == 0);
}

void MpiTransport::iteration_blocks_changed(const std::vector<std::size_t>& blocks) {
  iteration_need_ = 0;
  for (const std::size_t bytes : blocks) iteration_need_ += bytes;
}

void MpiTransport::check_iteration_capacity(const std::vector<std::size_t>& blocks) {
  iteration_blocks_changed(blocks);
  const std::size_t need = iteration_need_;
  if (source_ != 0) return;  // said once, by the first client (ecluse-check: every node size)
  warn_iteration_too_big(log_, blocks.size(), need, window_, "the dedicated node's receive memory",
                         config_.architecture);
}

// Before a write is dropped for want of credit (policy skip): credit messages the server has
// sent may still wait to be matched, since MPI completes a receive only inside a call and one
// test after a quiet period may not get that far. A few more tests, a few microseconds.
bool MpiTransport::credit_arrives(std::size_t need) {
  for (int i = 0; i < 8 && credit_ < need; ++i) progress();
  return credit_ >= need;
}

bool MpiTransport::wait_for_credit(const BlockData& block, std::size_t need, bool may_skip) {
  handed_.note(block.iteration);
  check_fits(block, need, may_skip);
  progress();
  if (credit_ >= need) return true;
  if (may_skip && skipping()) return credit_arrives(need);
  ++credit_waits_;
  flush_batch();  // what is written reaches the server while this client waits
  PhaseScope waiting(accounting_, Phase::Wait);
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + timeout_;
  Backoff backoff;
  while (credit_ < need) {
    backoff.pause();
    progress();
    check_server(deadline, "waiting for credit (receive memory) from the dedicated node");
  }
  credit_wait_seconds_ += seconds_since(start);
  return true;
}

BlockMessage MpiTransport::header_of(MessageType type, int iteration) const {
  BlockMessage e;
  e.type = type;
  e.iteration = iteration;
  e.source = source_;
  return e;
}

BlockMessage MpiTransport::header_of(const BlockData& block, std::size_t bytes) const {
  BlockMessage e = describe_block(config_, block, bytes);
  e.source = source_;
  return e;
}

MpiTransport::InFlight& MpiTransport::next_in_flight(const BlockMessage& header,
                                                     std::list<InFlight>& from) {
  if (from.empty()) from.emplace_back();
  in_flight_.splice(in_flight_.end(), from, from.begin());
  InFlight& f = in_flight_.back();
  f.header = header;
  const auto now = std::chrono::steady_clock::now();
  if (last_sent_.time_since_epoch().count() != 0) {
    f.header.since_previous_us = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(now - last_sent_).count());
  }
  last_sent_ = now;
  return f;
}

void MpiTransport::count_sent(std::uint64_t bytes) {
  credit_ -= bytes;
  lowest_credit_ = std::min(lowest_credit_, credit_);
  held_ += bytes;
  sent_bytes_ += bytes;
  ++sent_blocks_;
}

// Every message but a batch: the batch goes first, so that the server sees the messages in the
// order of the calls (an iteration's blocks before its end).
void MpiTransport::send(const BlockMessage& header, BufferPool::Buffer buffer) {
  flush_batch();
  InFlight& f = next_in_flight(header, spare_);
  f.buffer = std::move(buffer);
  channel_.send_header(f.header, server_, &f.requests[0]);
  if (header.type != MessageType::Write) return;
  channel_.send_payload(f.buffer.data.get(), header.bytes, server_, &f.requests[1]);
  count_sent(header.bytes);
}

void MpiTransport::add_to_batch(const BlockData& block, std::size_t bytes,
                                const StridedSource* strided) {
  const std::size_t entry = batch_entry_bytes(bytes);
  if (batch_used_ + entry > sizeof(HeaderSlot)) flush_batch();
  if (batch_.empty()) {
    if (spare_.empty()) spare_.emplace_back();
    batch_.splice(batch_.end(), spare_, spare_.begin());
    batch_.front().packed.resize(sizeof(HeaderSlot));  // once per node
  }
  char* at = batch_.front().packed.data() + batch_used_;
  copy_source(at + sizeof(BlockMessage), block, strided, bytes, false);  // may throw: not added
  const BlockMessage header = header_of(block, bytes);
  std::memcpy(at, &header, sizeof header);
  batch_used_ += entry;
  ++batch_blocks_;
  count_sent(bytes);
  ++batched_blocks_;
}

void MpiTransport::flush_batch() {
  if (batch_blocks_ == 0) return;
  BlockMessage header = header_of(MessageType::Batch, 0);
  header.block = batch_blocks_;
  header.bytes = batch_used_ - sizeof(BlockMessage);
  InFlight& f = next_in_flight(header, batch_);
  std::memcpy(f.packed.data(), &f.header, sizeof f.header);
  channel_.send_batch(f.packed.data(), f.header, server_, &f.requests[0]);
  batch_used_ = sizeof(BlockMessage);
  batch_blocks_ = 0;
  ++batches_;
}

bool MpiTransport::put(const BlockData& block, std::size_t bytes, const StridedSource* strided) {
  check_dimensions(block, "dedicated nodes");
  if (!wait_for_credit(block, bytes, true)) {
    log_skipped(log_, block, ++skipped_, "no credit from the dedicated node");
    return false;
  }
  if (bytes <= kBatchedBlock) {
    add_to_batch(block, bytes, strided);
    return true;
  }
  BufferPool::Buffer buffer = pool_.acquire(bytes);
  copy_source(buffer.data.get(), block, strided, bytes, bytes >= streaming_from_);
  send(header_of(block, bytes), std::move(buffer));
  return true;
}

void* MpiTransport::alloc(const BlockData& block, std::size_t bytes) {
  check_dimensions(block, "dedicated nodes");
  clear(*block.variable, block.block);
  wait_for_credit(block, bytes, false);
  BufferPool::Buffer buffer = pool_.acquire(bytes);  // before anything is reserved: may throw
  // Reserved now so that the commit cannot block: a later write waits for its own credit.
  credit_ -= bytes;
  held_ += bytes;
  Allocated& a = allocated_[{block.variable, block.block}];
  a = {header_of(block, bytes), std::move(buffer)};
  return a.buffer.data.get();
}

void MpiTransport::commit(const Variable& variable, int block) {
  auto it = allocated_.find({&variable, block});
  if (it == allocated_.end()) {
    throw_not_allocated(variable, block);
  }
  credit_ += it->second.header.bytes;  // send() takes it again
  held_ -= it->second.header.bytes;
  send(it->second.header, std::move(it->second.buffer));
  in_flight_.back().committed = true;
  allocated_.erase(it);
}

void MpiTransport::clear(const Variable& variable, int block) {
  auto it = allocated_.find({&variable, block});
  if (it == allocated_.end()) return;
  credit_ += it->second.header.bytes;
  held_ -= it->second.header.bytes;
  pool_.release(std::move(it->second.buffer));
  allocated_.erase(it);
}

void MpiTransport::end_iteration(int iteration) {
  held_ = 0;
  handed_.note(iteration);
  for (BufferPool::Buffer& buffer : committed_) pool_.release(std::move(buffer));
  committed_.clear();
  for (InFlight& f : in_flight_) f.committed = false;
  // A server on this host is checked; a remote server's death is MPI's to tell.
  if (const auto now = std::chrono::steady_clock::now(); server_local_ && server_checks_.due(now)) {
    check_server(now + timeout_, "the client ended an iteration");
  }
  send(header_of(MessageType::EndIteration, iteration), {});
  progress();
}

bool MpiTransport::signal(const std::string& name, int iteration) {
  BlockMessage e = header_of(MessageType::Signal, iteration);
  std::strncpy(e.name, name.c_str(), sizeof e.name - 1);
  send(e, {});
  return true;
}

// The server answers a Stop with kBye once it has every earlier message: then no message of
// this client is left in flight, and none of the server's is unreceived.
void MpiTransport::stop() {
  if (stopped_) return;
  stopped_ = true;
  send(header_of(MessageType::Stop, 0), {});
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  PhaseScope waiting(accounting_, Phase::Wait);
  Backoff backoff;
  for (progress(); !bye_ || !in_flight_.empty(); progress()) {
    backoff.pause();
    check_server(deadline, "waiting for the dedicated node to receive this client's last data");
  }
  if (sent_blocks_ > 0 || credit_waits_ > 0) {
    log_.info("dedicated node transport: " + std::to_string(sent_blocks_) + " block(s), " +
              std::to_string(sent_bytes_) + " bytes sent; waited for credit " +
              std::to_string(credit_waits_) + " time(s), " + std::to_string(credit_wait_seconds_) +
              " s; lowest credit " + std::to_string(lowest_credit_) + " of " +
              std::to_string(window_) + " bytes");
  }
}

// The server sent kBye and no more credit; it returns what it freed since then when it serves
// again (DedicatedNodeServer::rearm), after the collective restart.
void MpiTransport::restart() {
  if (!stopped_) return;
  stopped_ = false;
  bye_ = false;
  channel_.receive_credit(credit_message_, server_, &credit_request_);
}

bool MpiTransport::allocated_now(const Variable& variable, int block) const {
  return allocated_.count({&variable, block}) != 0;
}

std::size_t MpiTransport::discard() {
  const std::size_t dropped = allocated_.size();
  for (auto& [key, a] : allocated_) {
    credit_ += a.header.bytes;
    pool_.release(std::move(a.buffer));
  }
  allocated_.clear();
  return dropped;
}

Statistics MpiTransport::statistics() const {
  return {{Statistic::DnWindowBytes, static_cast<double>(window_)},
          {Statistic::DnCreditBytes, static_cast<double>(credit_)},
          {Statistic::DnLowestCreditBytes, static_cast<double>(lowest_credit_)},
          {Statistic::DnCreditWaits, static_cast<double>(credit_waits_)},
          {Statistic::DnCreditWaitSeconds, credit_wait_seconds_},
          {Statistic::DnSentBlocks, static_cast<double>(sent_blocks_)},
          {Statistic::DnBatchedBlocks, static_cast<double>(batched_blocks_)},
          {Statistic::DnBatches, static_cast<double>(batches_)},
          {Statistic::DnSentBytes, static_cast<double>(sent_bytes_)},
          {Statistic::DnSkippedBlocks, static_cast<double>(skipped_)}};
}

}  // namespace ecluse
