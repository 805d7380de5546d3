// Iteration assembly, storage order, and user events on the server side.
#include "server/BlockCollector.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/Collective.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {

namespace {
constexpr int kSignalTag = 7301;

// ECLUSE_STORE_THREAD=0 stores on the server's own thread, as before the store thread: for
// measurements side by side, and for actions that call a serial (not thread-safe) HDF5.
bool store_thread_enabled() {
  const char* setting = std::getenv("ECLUSE_STORE_THREAD");
  return setting == nullptr || std::string(setting) != "0";
}

}  // namespace

BlockCollector::BlockCollector(const Config& config, Writer& writer, EventTable& events, Log& log,
                               MPI_Comm servers, int clients, int group_size, Release release,
                               bool store_thread)
    : config_(config),
      writer_(writer),
      events_(events),
      log_(log),
      servers_(servers),
      clients_(clients),
      group_size_(group_size),
      release_(std::move(release)),
      store_thread_allowed_(store_thread && store_thread_enabled()) {
  int size = 0;
  MPI_Comm_size(servers_, &size);
  sent_to_.assign(static_cast<std::size_t>(size), 0);
  received_from_.assign(static_cast<std::size_t>(size), 0);
}

void BlockCollector::on_write(const BlockMessage& e, const void* data) {
  const auto [it, added] = iterations_.try_emplace(e.iteration);
  it->second.blocks.push_back(block_of(config_, e, data));
  it->second.writes.push_back(e);
  if (added) publish_unstored();  // only a new iteration changes what is not stored
}

void BlockCollector::on_end(const BlockMessage& e) {
  ++iterations_[e.iteration].ended;
  int& next = next_of_[e.source];
  next = std::max(next, e.iteration + 1);
  flush_complete();
  publish_unstored();
}

void BlockCollector::on_stop(const BlockMessage& e) {
  const auto next = next_of_.find(e.source);
  stopped_from_.push_back(next == next_of_.end() ? 0 : next->second);
  flush_complete();
  publish_unstored();
}

// The clients that ended the iteration, and those that stopped before it.
int BlockCollector::ended(int number, const Iteration& it) const {
  return it.ended + static_cast<int>(std::count_if(stopped_from_.begin(), stopped_from_.end(),
                                                   [number](int from) { return from <= number; }));
}

void BlockCollector::flush_complete() {
  while (!iterations_.empty() &&
         ended(iterations_.begin()->first, iterations_.begin()->second) >= clients_) {
    flush(iterations_.begin());
  }
}

BlockCollector::~BlockCollector() {
  store_thread_.reset();  // stores what it holds while the blocks are still there
}

bool BlockCollector::stores_in_background() const {
  return store_thread_allowed_ && writer_.stores_on_any_thread();
}

// On the store thread, the iteration's blocks stay held (back-pressure on the clients) until
// collect_stored() sees it stored. Decided once: a store thread keeps the iterations' order.
void BlockCollector::flush(std::map<int, Iteration>::iterator it) {
  Iteration iteration = std::move(it->second);
  const int number = it->first;
  iterations_.erase(it);
  if (!store_thread_ && !stores_in_background()) {
    store_here(number, iteration);
    return;
  }
  if (!store_thread_) store_thread_ = std::make_unique<StoreThread>(writer_, notify_stored_);
  store_thread_->submit(number, iteration.blocks);
  iteration.number = number;
  in_flight_.push_back(std::move(iteration));
  ++submitted_;
}

// A store or an in-situ action (a script) may take seconds: meanwhile a signal's entry, written
// by ServerSignals' thread, names this iteration as not stored.
void BlockCollector::store_here(int number, Iteration& it) {
  storing_here_ = number;
  publish_unstored();
  struct Done {
    BlockCollector& collector;
    ~Done() {
      collector.storing_here_ = -1;
      collector.publish_unstored();
    }
  } done{*this};
  finish_iteration(number, it, nullptr);
}

// `stored`: what the store thread did, or null to store here and now.
void BlockCollector::finish_iteration(int number, Iteration& it,
                                      const Writer::StoredIteration* stored) {
  try {
    if (stored != nullptr) {
      writer_.record(*stored, it.blocks);
    } else {
      writer_.write_iteration(number, it.blocks);
    }
  } catch (const Error&) {
    // The writer logged the cause once; the clients and the report learn of every failure.
    if (failures_++ == 0) first_failure_ = writer_.last_failure();
  }
  for (const BlockMessage& w : it.writes) release_(w);
}

bool BlockCollector::collect_stored() {
  if (!store_thread_) return false;
  const std::vector<Writer::StoredIteration> done = store_thread_->take_done();
  for (const Writer::StoredIteration& stored : done) {
    finish_iteration(stored.iteration, in_flight_.front(), &stored);
    in_flight_.pop_front();
    ++collected_;
  }
  if (!done.empty()) publish_unstored();
  bool fired = false;
  while (!deferred_.empty() && deferred_.front().after <= collected_) {
    const BlockMessage signal = deferred_.front().signal;
    deferred_.pop_front();
    signal_now(signal);
    fired = true;
  }
  return fired || !done.empty();
}

void BlockCollector::drain() {
  if (!store_thread_) return;
  constexpr std::chrono::milliseconds kCheckEvery{100};
  while (!store_thread_->wait_idle_for(kCheckEvery)) {
    if (while_draining_) while_draining_();
  }
  collect_stored();
}

void BlockCollector::flush_unended() {
  if (!iterations_.empty()) {
    log_.warning(std::to_string(iterations_.size()) +
                 " iteration(s) were not ended by every client before stop; storing them as "
                 "they are.");
  }
  while (!iterations_.empty()) flush(iterations_.begin());
  drain();
}

void BlockCollector::finish() {
  flush_unended();
  // Servers learn how many broadcast signals each peer sent them and receive every one before
  // leaving, so a signal sent just before a peer's clients stopped is not lost.
  std::vector<int> expected(sent_to_.size());
  const WaitScope scope("in stop for the other servers' counts of broadcast signals");
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ialltoall(sent_to_.data(), 1, MPI_INT, expected.data(), 1, MPI_INT, servers_, &request);
  complete(request, servers_, "MPI_Ialltoall");
  for (std::size_t from = 0; from < expected.size(); ++from) {
    while (received_from_[from] < expected[from]) receive_broadcast(static_cast<int>(from));
  }
}

namespace {

std::pair<int, int> joined(std::pair<int, int> range, int first, int last) {
  if (range.first < 0) return {first, last};
  return {std::min(range.first, first), std::max(range.second, last)};
}

}  // namespace

std::pair<int, int> BlockCollector::unstored_range() const {
  std::pair<int, int> range = pending_range();
  if (storing_here_ >= 0) range = joined(range, storing_here_, storing_here_);
  if (in_flight_.empty()) return range;
  return joined(range, in_flight_.front().number, in_flight_.back().number);
}

void BlockCollector::publish_unstored() {
  const Unstored now{first_unstored(), unstored_range()};
  const std::lock_guard<std::mutex> lock(unstored_mutex_);
  unstored_ = now;
}

BlockCollector::Unstored BlockCollector::unstored_snapshot() const {
  const std::lock_guard<std::mutex> lock(unstored_mutex_);
  return unstored_;
}

int BlockCollector::first_unstored() const {
  if (const int first = unstored_range().first; first >= 0) return first;
  if (next_of_.empty()) return 0;
  int next = next_of_.begin()->second;
  for (const auto& entry : next_of_) next = std::min(next, entry.second);
  return next;
}

std::string BlockCollector::pending_description() const {
  if (iterations_.empty()) return {};
  // Iterations on the store thread are complete: they are stored before the server stops.
  const int first = iterations_.begin()->first, last = iterations_.rbegin()->first;
  return "; " +
         (first == last
              ? "iteration " + std::to_string(first) + " was"
              : "iterations " + std::to_string(first) + " to " + std::to_string(last) + " were") +
         " received in part and " + (first == last ? "is" : "are") + " not stored";
}

void BlockCollector::fire(const std::string& name, int source, int iteration) {
  try {
    events_.fire(name, source, iteration);
  } catch (const Error& e) {
    log_.error(std::string(e.what()) + " (signalled by client " + std::to_string(source) +
               " at iteration " + std::to_string(iteration) + ")");
  }
}

void BlockCollector::on_signal(const BlockMessage& e) {
  if (submitted_ > collected_ || !deferred_.empty()) {
    deferred_.push_back({e, submitted_});
    return;
  }
  signal_now(e);
}

void BlockCollector::signal_now(const BlockMessage& e) {
  const std::string name(e.name, strnlen(e.name, sizeof e.name));
  const Event* declared = config_.find_event(name);
  const EventScope scope = declared ? declared->scope : EventScope::Core;
  if (scope == EventScope::Group) {
    if (++group_counts_[{name, e.iteration}] < group_size_) return;
    group_counts_.erase({name, e.iteration});
  }
  fire(name, e.source, e.iteration);
  if (scope == EventScope::Bcast) broadcast(name, e);
}

void BlockCollector::broadcast(const std::string& name, const BlockMessage& e) {
  int size = 0, me = 0;
  MPI_Comm_size(servers_, &size);
  MPI_Comm_rank(servers_, &me);
  const int message[2] = {e.source, e.iteration};
  for (int other = 0; other < size; ++other) {
    if (other == me) continue;
    ++sent_to_[static_cast<std::size_t>(other)];
    send_bounded(message, 2, MPI_INT, other, kSignalTag, servers_);
    send_bounded(name.c_str(), static_cast<int>(name.size()), MPI_CHAR, other, kSignalTag + 1,
                 servers_);
  }
}

void BlockCollector::receive_broadcasts() {
  int pending = 0;
  MPI_Status status;
  MPI_Iprobe(MPI_ANY_SOURCE, kSignalTag, servers_, &pending, &status);
  while (pending) {
    receive_broadcast(status.MPI_SOURCE);
    MPI_Iprobe(MPI_ANY_SOURCE, kSignalTag, servers_, &pending, &status);
  }
}

void BlockCollector::receive_broadcast(int from) {
  int message[2];
  receive_bounded(message, 2, MPI_INT, from, kSignalTag, servers_);
  const int length = probe_bounded(from, kSignalTag + 1, servers_, MPI_CHAR);
  std::string name(static_cast<std::size_t>(length), '\0');
  receive_bounded(name.data(), length, MPI_CHAR, from, kSignalTag + 1, servers_);
  ++received_from_[static_cast<std::size_t>(from)];
  fire(name, message[0], message[1]);
}

}  // namespace ecluse
