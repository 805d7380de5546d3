// Dedicated nodes, server side: keeps a header receive posted for each client, receives
// payloads into pooled memory within the receive budget, returns credit once data is stored.
#pragma once

#include <chrono>
#include <list>
#include <memory>
#include <unordered_map>
#include <vector>

#include "action/EventTable.hpp"
#include "config/Config.hpp"
#include "core/Log.hpp"
#include "core/Wakeup.hpp"
#include "dn/BufferPool.hpp"
#include "dn/MessageChannel.hpp"
#include "dn/PollPacer.hpp"
#include "server/BlockCollector.hpp"
#include "server/TerminationWatch.hpp"
#include "topology/Topology.hpp"
#include "transport/Transport.hpp"
#include "writer/Writer.hpp"

namespace ecluse {

class DedicatedNodeServer {
 public:
  /** `memory`: this server's receive memory in bytes (payloads held at once, at most). */
  DedicatedNodeServer(const Config& config, const Topology& topology, std::uint64_t memory,
                      Writer& writer, EventTable& events, Log& log, Accounting& accounting);
  ~DedicatedNodeServer();
  /** Serves until every client has stopped; throws ECLUSE_CHANNEL_ERROR if a client dies,
   * aborts the job if its clients send nothing for ECLUSE_TIMEOUT. Called again for a
   * restarted phase. */
  void run();
  [[nodiscard]] Statistics statistics() const;
  /** <buffer prefault>: maps at initialize the receive memory of as many iterations of every
   * client's `block_bytes` (block_bytes_per_iteration) as this server's memory holds. */
  void prefault(const std::vector<std::size_t>& block_bytes);
  /** Why this server could not store, for its clients ("" when every iteration was stored). */
  [[nodiscard]] std::string store_failure() const;
  [[nodiscard]] std::uint32_t store_failures() const;

 private:
  struct Pending {
    BlockMessage header;
    BufferPool::Buffer buffer;
    MPI_Request payload[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  };
  struct Peer {
    int rank = 0;  // world rank
    ProcessId process;
    HeaderSlot slot;  // the posted header receive lands here (and a small payload)
    std::list<Pending> queue;
    std::uint64_t freed = 0;  // bytes stored since the last credit message
    bool stopped = false;
  };
  struct Credit {
    CreditMessage message;
    MPI_Request request = MPI_REQUEST_NULL;
  };
  void rearm();
  bool progress();
  /** Sleeps until the next poll, or until the store thread stored an iteration. */
  void pause();
  /** A header announced a payload that has not fully arrived. */
  [[nodiscard]] bool receiving_payload() const;
  bool receive_headers();
  void on_header(std::size_t client);
  void unpack_batch(std::size_t client);
  /** Receive memory for a block of `bytes`, counted as held. */
  BufferPool::Buffer acquire(std::uint64_t bytes);
  bool deliver(std::size_t client);
  void handle(std::size_t client, Pending& p);
  void release(const BlockMessage& e);
  void send_credit(std::size_t client, std::uint64_t bytes);
  void return_credits();
  void complete_credits();
  void serve(ServerSignals& signals);
  void check_clients(std::chrono::milliseconds period);
  void check_silence() const;
  void drain_credits();
  void log_statistics() const;

  MessageChannel channel_;
  Log& log_;
  Accounting& accounting_;
  std::uint64_t memory_;
  ProcessId self_;
  std::vector<Peer> peers_;           // by client index
  std::vector<MPI_Request> headers_;  // by client index
  std::vector<int> completed_;        // scratch for MPI_Testsome
  std::list<Credit> credits_;         // credit messages in flight
  BufferPool pool_;
  std::unordered_map<std::uint64_t, BufferPool::Buffer> stored_;  // by handle, until released
  std::uint64_t next_handle_ = 0;
  // The store thread ends the sleep between polls: declared before collector_, whose store
  // thread calls it, so that it is destroyed after that thread is joined.
  Wakeup wakeup_;
  std::unique_ptr<BlockCollector> collector_;
  std::size_t stopped_ = 0;
  std::chrono::steady_clock::time_point last_check_;
  std::chrono::steady_clock::time_point last_message_;  // from any client of this server
  PollPacer pacer_;
  std::chrono::seconds timeout_;
  // Statistics.
  std::uint64_t held_ = 0, peak_held_ = 0, received_bytes_ = 0, received_blocks_ = 0;
  std::uint64_t credit_messages_ = 0;
};

}  // namespace ecluse
