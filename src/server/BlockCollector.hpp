// The server side shared by dedicated cores and dedicated nodes: gathers each iteration's
// blocks from a server's clients, runs the stores in iteration order, fires user events.
#pragma once

#include <mpi.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "action/EventTable.hpp"
#include "block/BlockMessage.hpp"
#include "config/Config.hpp"
#include "core/Log.hpp"
#include "writer/Writer.hpp"

namespace ecluse {

class BlockCollector {
 public:
  /** Called for each block once its iteration is stored (or dropped): frees its memory. */
  using Release = std::function<void(const BlockMessage&)>;
  /** `clients`: clients of this server (an iteration is complete when all ended it);
   * `group_size`: signals of scope "group" fire after this many arrived. */
  BlockCollector(const Config& config, Writer& writer, EventTable& events, Log& log,
                 MPI_Comm servers, int clients, int group_size, Release release);
  /** A block described by `e` whose data is at `data` until released. */
  void on_write(const BlockMessage& e, const void* data);
  /** Client `e.source` ended `e.iteration`; stores every complete iteration, in order. */
  void on_end(const BlockMessage& e);
  void on_signal(const BlockMessage& e);
  /** Runs broadcast signals sent by other servers (non-blocking). */
  void receive_broadcasts();
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
  };
  void fire(const std::string& name, int source, int iteration);
  void flush(std::map<int, Iteration>::iterator it);
  void broadcast(const std::string& name, const BlockMessage& e);
  void receive_broadcast(int from);

  const Config& config_;
  Writer& writer_;
  EventTable& events_;
  Log& log_;
  MPI_Comm servers_;
  int clients_;
  int group_size_;
  Release release_;
  std::map<int, Iteration> iterations_;
  std::map<std::pair<std::string, int>, int> group_counts_;  // (event, iteration) -> signals
  std::vector<int> sent_to_, received_from_;                 // bcast signals per peer server
  std::uint32_t failures_ = 0;
  std::string first_failure_;
};

}  // namespace ecluse
