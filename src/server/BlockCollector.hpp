// The server side shared by dedicated cores and dedicated nodes: gathers each iteration's
// blocks from a server's clients, runs the stores in iteration order, fires user events.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "action/EventTable.hpp"
#include "block/BlockMessage.hpp"
#include "config/Config.hpp"
#include "core/Log.hpp"
#include "server/StoreThread.hpp"
#include "writer/Writer.hpp"

namespace ecluse {

class BlockCollector {
 public:
  /** Called for each block once its iteration is stored (or dropped): frees its memory. */
  using Release = std::function<void(const BlockMessage&)>;
  /** `clients`: clients of this server (an iteration is complete when all ended it);
   * `group_size`: signals of scope "group" fire after this many arrived; `store_thread`: may
   * store on a thread of its own (see stores_in_background) when the writer allows it. */
  BlockCollector(const Config& config, Writer& writer, EventTable& events, Log& log,
                 MPI_Comm servers, int clients, int group_size, Release release,
                 bool store_thread = true);
  ~BlockCollector();
  BlockCollector(const BlockCollector&) = delete;
  BlockCollector& operator=(const BlockCollector&) = delete;
  /** A block described by `e` whose data is at `data` until released. */
  void on_write(const BlockMessage& e, const void* data);
  /** Client `e.source` ended `e.iteration`; stores every complete iteration, in order (on
   * the store thread: collect_stored() then releases them). */
  void on_end(const BlockMessage& e);
  /** Client `e.source` stopped: it counts as having ended every iteration after the last one
   * it ended, so that the others' later iterations are stored as they end, not at finish. */
  void on_stop(const BlockMessage& e);
  /** A restarted phase: the clients that stopped write again. */
  void restart() { stopped_from_.clear(); }
  /** Fires the event once every iteration handed to the stores before it is stored, so that
   * an action sees what was stored when it was signalled, as with synchronous stores. */
  void on_signal(const BlockMessage& e);
  /** Releases the iterations the store thread finished and fires the signals that waited for
   * them; true if there were any. Call it often while storing() (never blocks). */
  bool collect_stored();
  /** `notify` is called on the store thread each time it stored an iteration, so that a
   * server asleep can wake and collect it (set before the first iteration ends). */
  void notify_stored(std::function<void()> notify) { notify_stored_ = std::move(notify); }
  /** Called every 100 ms while waiting for the store thread (finish, wait_stored): the
   * server's signal check, so a job's ending signal is acted on while the backlog is stored. */
  void while_draining(std::function<void()> check) { while_draining_ = std::move(check); }
  /** Iterations on the store thread or signals waiting for them. */
  [[nodiscard]] bool storing() const { return !in_flight_.empty() || !deferred_.empty(); }
  /** Whether complete iterations go to a store thread: the writer's stores make no MPI call,
   * there are no hooks, the server allows it, and ECLUSE_STORE_THREAD is not 0. */
  [[nodiscard]] bool stores_in_background() const;
  /** Runs broadcast signals sent by other servers (non-blocking). */
  void receive_broadcasts();
  /** Waits until the store thread stored every iteration handed to it, and releases them. */
  void wait_stored() { drain(); }
  /** Every client stopped: stores what is left, then receives the peers' last broadcasts.
   * Collective over the servers' communicator. */
  void finish();
  /** Stores the iterations not ended by every client (with a warning); finish() does it first.
   * A storing dedicated core calls it before handing its Stops on to its analysis core. */
  void flush_unended();
  /** Iterations whose storing failed so far, and the first failure ("iteration I in store
   * 'S': cause"). */
  [[nodiscard]] std::uint32_t failures() const { return failures_; }
  [[nodiscard]] const std::string& first_failure() const { return first_failure_; }
  /** Blocks received and not yet stored. */
  [[nodiscard]] std::size_t pending_iterations() const { return iterations_.size(); }
  /** What a server that stops now loses: "" or "; iterations 3 to 5 were received in part and
   * are not stored". */
  [[nodiscard]] std::string pending_description() const;
  /** The first and last iteration received and not stored yet: on the store thread or held in
   * part; {-1, -1} for none. */
  [[nodiscard]] std::pair<int, int> unstored_range() const;
  /** The first iteration not stored: the first of unstored_range(), else the first that not
   * every client ended (0 before any). */
  [[nodiscard]] int first_unstored() const;
  /** unstored_range() and first_unstored() as the server's thread last left them. */
  struct Unstored {
    int first = 0;
    std::pair<int, int> range{-1, -1};
  };
  /** For another thread than the server's (a signal's entry written while that thread is in a
   * script or a store): the last state published, never torn. */
  [[nodiscard]] Unstored unstored_snapshot() const;
  /** The first and last iterations received in part (-1, -1 when none). */
  [[nodiscard]] std::pair<int, int> pending_range() const {
    if (iterations_.empty()) return {-1, -1};
    return {iterations_.begin()->first, iterations_.rbegin()->first};
  }

 private:
  struct Iteration {
    std::vector<BlockData> blocks;
    std::vector<BlockMessage> writes;
    int ended = 0;
    int number = -1;  // set when handed to the store thread
  };
  [[nodiscard]] int ended(int number, const Iteration& it) const;
  void flush_complete();
  void fire(const std::string& name, int source, int iteration);
  void signal_now(const BlockMessage& e);
  void flush(std::map<int, Iteration>::iterator it);
  void finish_iteration(int number, Iteration& it, const Writer::StoredIteration* stored);
  void drain();
  void broadcast(const std::string& name, const BlockMessage& e);
  void receive_broadcast(int from);
  void publish_unstored();
  void store_here(int number, Iteration& it);

  const Config& config_;
  Writer& writer_;
  EventTable& events_;
  Log& log_;
  MPI_Comm servers_;
  int clients_;
  int group_size_;
  Release release_;
  std::map<int, Iteration> iterations_;
  std::map<int, int> next_of_;     // by client (source): the iteration after its last ended one
  std::vector<int> stopped_from_;  // each stopped client: the first iteration it did not end
  bool store_thread_allowed_;
  std::function<void()> notify_stored_;
  std::function<void()> while_draining_;
  std::unique_ptr<StoreThread> store_thread_;  // made at the first background store
  std::deque<Iteration> in_flight_;            // on the store thread, in order
  std::uint64_t submitted_ = 0, collected_ = 0;
  struct Deferred {
    BlockMessage signal;
    std::uint64_t after;  // fires once this many iterations were collected
  };
  std::deque<Deferred> deferred_;
  std::map<std::pair<std::string, int>, int> group_counts_;  // (event, iteration) -> signals
  std::vector<int> sent_to_, received_from_;                 // bcast signals per peer server
  std::uint32_t failures_ = 0;
  std::string first_failure_;
  int storing_here_ = -1;  // stored on the server's thread now: taken from iterations_ already
  mutable std::mutex unstored_mutex_;  // never held across a store or an action
  Unstored unstored_;
};

}  // namespace ecluse
