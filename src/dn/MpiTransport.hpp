// Dedicated nodes, client side: a write is a copy into an outgoing buffer and two non-blocking
// sends, admitted only within the credit its server granted (memory-aware backpressure).
#pragma once

#include <chrono>
#include <list>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "accounting/Accounting.hpp"
#include "core/Log.hpp"
#include "dn/BufferPool.hpp"
#include "dn/MessageChannel.hpp"
#include "topology/Topology.hpp"
#include "transport/Transport.hpp"
#include "transport/TransportSupport.hpp"

namespace ecluse {

class MpiTransport : public Transport {
 public:
  /** `window`: bytes of the server's receive memory this client may fill; `source`: rank in
   * the clients' communicator. */
  MpiTransport(const Config& config, const Topology& topology, std::uint64_t window, int source,
               Log& log, Accounting& accounting);
  ~MpiTransport() override;
  bool put(const BlockData& block, std::size_t bytes, const StridedSource* strided) override;
  void* alloc(const BlockData& block, std::size_t bytes) override;
  void commit(const Variable& variable, int block) override;
  void clear(const Variable& variable, int block) override;
  [[nodiscard]] bool allocated_now(const Variable& variable, int block) const override;
  void check_capacity(const Variable& variable, std::size_t bytes) const override;
  void check_iteration_capacity(const std::vector<std::size_t>& blocks) override;
  void iteration_blocks_changed(const std::vector<std::size_t>& blocks) override;
  void end_iteration(int iteration) override;
  bool signal(const std::string& event, int iteration) override;
  void stop() override;
  void restart() override;
  std::size_t discard() override;
  /** Throws ECLUSE_IO_ERROR when the server's credit messages report a store failure not yet
   * raised (the server's own message comes at finalize). */
  void raise_store_failures() override;
  [[nodiscard]] std::uint32_t store_failures_raised() const override { return failures_seen_; }
  [[nodiscard]] std::string unraised_store_failures(
      const std::vector<std::uint32_t>& failures,
      const std::vector<std::string>& texts) const override;
  [[nodiscard]] Statistics statistics() const override;
  /** <buffer prefault>: maps at initialize the outgoing memory of as many iterations of
   * `block_bytes` (block_bytes_per_iteration) as this client's window holds. */
  void prefault(const std::vector<std::size_t>& block_bytes);

 private:
  struct InFlight {
    BlockMessage header;
    BufferPool::Buffer buffer;
    // A Batch: its header, then its entries (sized once: spare nodes reuse it).
    std::vector<char> packed;
    MPI_Request requests[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    bool committed = false;  // an allocated block: readable until its iteration ends
  };
  struct Allocated {
    BlockMessage header;
    BufferPool::Buffer buffer;
  };
  void progress();
  void collect_credits();
  void complete_sends();
  bool wait_for_credit(const BlockData& block, std::size_t need, bool may_skip);
  bool credit_arrives(std::size_t need);
  void check_server(std::chrono::steady_clock::time_point deadline, const std::string& what);
  void send(const BlockMessage& header, BufferPool::Buffer buffer);
  /** The next node of in_flight_, taken from `from`, its header stamped with the time since the
   * previous send. */
  InFlight& next_in_flight(const BlockMessage& header, std::list<InFlight>& from);
  void count_sent(std::uint64_t bytes);
  /** A small write: copied into the batch, sent when full or before any other message. */
  void add_to_batch(const BlockData& block, std::size_t bytes, const StridedSource* strided);
  void flush_batch();
  [[nodiscard]] BlockMessage header_of(MessageType type, int iteration) const;
  [[nodiscard]] BlockMessage header_of(const BlockData& block, std::size_t bytes) const;
  void check_fits(const BlockData& block, std::size_t need, bool may_skip) const;
  [[nodiscard]] bool skipping() const;

  const Config& config_;
  MessageChannel channel_;
  int server_;  // world rank of this client's server
  ProcessId server_process_;
  bool server_local_;  // on this host: its death is seen at once
  int source_;
  Log& log_;
  Accounting& accounting_;
  std::chrono::seconds timeout_;
  std::chrono::steady_clock::time_point last_sent_{};  // of the previous message
  OncePerSecond server_checks_;                        // at end_iteration, a server on this host
  BufferPool pool_;
  std::list<InFlight> in_flight_, spare_;  // spare nodes: no allocation per write
  // The batch being filled, in the node that will send it (none yet, or one): its packed has
  // room for the batch's header (written at flush), then the entries.
  std::list<InFlight> batch_;
  std::size_t batch_used_ = sizeof(BlockMessage);
  std::int32_t batch_blocks_ = 0;
  std::map<std::pair<const Variable*, int>, Allocated> allocated_;
  // Committed blocks already sent: their memory stays the caller's to read (as Damaris keeps a
  // committed block until clear) until end_iteration returns it to the pool.
  std::vector<BufferPool::Buffer> committed_;
  std::uint64_t window_, credit_, held_ = 0;
  std::size_t iteration_need_ = 0;  // a whole iteration's, from the sizes at initialize
  CreditMessage credit_message_;
  std::uint64_t server_failures_ = 0;  // as the last credit message said
  int server_first_unstored_ = 0;      // the same
  std::string server_failure_;         // the server's first store failure, from the same
  HandedOver handed_;                  // named if the server dies
  std::uint32_t failures_seen_ = 0;    // raised to the simulation already
  MPI_Request credit_request_ = MPI_REQUEST_NULL;
  bool stopped_ = false, bye_ = false;
  // Statistics.
  std::uint64_t sent_bytes_ = 0, sent_blocks_ = 0, skipped_ = 0, credit_waits_ = 0;
  std::uint64_t batched_blocks_ = 0, batches_ = 0;
  std::uint64_t lowest_credit_;
  std::size_t streaming_from_;  // blocks from this size are copied with streaming stores
  double credit_wait_seconds_ = 0;
};

}  // namespace ecluse
