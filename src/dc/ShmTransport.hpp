// Dedicated cores, client side: a write is room in the node's buffer, one memcpy and an event
// on the queue of this client's server.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <utility>

#include "accounting/Accounting.hpp"
#include "block/BlockMessage.hpp"
#include "core/Log.hpp"
#include "dc/NodeBuffer.hpp"
#include "shm/ShmTypes.hpp"
#include "transport/Transport.hpp"
#include "transport/TransportSupport.hpp"

namespace ecluse {

class ShmTransport : public Transport {
 public:
  /** `server`: index of this client's server on the node; `client`: node-local client index;
   * `source`: rank in the clients' communicator. */
  ShmTransport(NodeBuffer& buffer, const Config& config, int server, int client, int source,
               Log& log, Accounting& accounting);
  bool put(const BlockData& block, std::size_t bytes, const StridedSource* strided) override;
  void* alloc(const BlockData& block, std::size_t bytes) override;
  void commit(const Variable& variable, int block) override;
  void clear(const Variable& variable, int block) override;
  [[nodiscard]] bool allocated_now(const Variable& variable, int block) const override;
  void check_capacity(const Variable& variable, std::size_t bytes) const override;
  void check_iteration_capacity(const std::vector<std::size_t>& blocks) override;
  void iteration_blocks_changed(const std::vector<std::size_t>& blocks) override;
  void raise_store_failures() override;
  [[nodiscard]] std::uint32_t store_failures_raised() const override { return failures_seen_; }
  [[nodiscard]] std::string unraised_store_failures(
      const std::vector<std::uint32_t>& failures,
      const std::vector<std::string>& texts) const override;
  void end_iteration(int iteration) override;
  bool signal(const std::string& event, int iteration) override;
  void stop() override;
  void restart() override { stopped_ = false; }
  std::size_t discard() override;
  [[nodiscard]] Statistics statistics() const override;
  /** Writes dropped by the "skip" policy so far. */
  [[nodiscard]] std::uint64_t skipped() const { return skipped_; }

 private:
  // Kept per (variable, block) once made, `live` while allocated and not committed: the
  // description is copied into place, reusing its vectors, so a steady-state alloc allocates
  // nothing on the heap.
  struct Allocated {
    BlockData block;
    shm::Handle handle = shm::kNoHandle;
    std::size_t bytes = 0;
    bool live = false;
  };
  Allocated* allocated(const Variable& variable, int block);
  shm::Handle acquire(const BlockData& block, std::size_t bytes, bool may_skip);
  [[nodiscard]] bool skipping() const;
  [[noreturn]] void too_big(const BlockData& block, std::size_t need, std::size_t share) const;
  shm::Handle skip(const BlockData& block);
  void release(shm::Handle handle, std::size_t bytes);
  void notify(const BlockData& block, shm::Handle handle, std::size_t bytes);
  void push(const BlockMessage& event, int server, bool wake = true);
  /** Throws when the server is gone, or ECLUSE_CHANNEL_ERROR "waited N s <what>: <why>" past
   * the deadline (why: by default, that the dedicated core does not answer). */
  void check_alive(std::chrono::steady_clock::time_point deadline, const char* what,
                   const char* why = nullptr) const;
  [[noreturn]] void no_room_in_part(const BlockData& block, std::size_t need) const;
  /** The message of this client's server's `failures` store failures, "" when it was told of
   * them all already. */
  [[nodiscard]] std::string unraised_failure(std::uint32_t failures) const;
  [[nodiscard]] BlockMessage event_of(MessageType type, int iteration) const;

  NodeBuffer& buffer_;
  const Config& config_;
  int server_;
  int client_;
  int source_;
  Log& log_;
  Accounting& accounting_;
  std::chrono::seconds timeout_;
  std::map<std::pair<const Variable*, int>, Allocated> allocated_;
  std::size_t live_ = 0;  // entries of allocated_ that are live
  std::uint64_t skipped_ = 0;
  std::uint32_t failures_seen_ = 0;  // store failures of this client's server already raised
  std::uint64_t sent_blocks_ = 0, sent_bytes_ = 0, buffer_waits_ = 0;
  double buffer_wait_seconds_ = 0;
  std::uint64_t queue_waits_ = 0;  // pushes that found the server's event queue full
  double queue_wait_seconds_ = 0;
  std::size_t held_ = 0;            // bytes of the current iteration the server cannot free yet
  std::size_t iteration_need_ = 0;  // a whole iteration's, from the sizes at initialize
  OncePerSecond server_checks_;     // at end_iteration
  HandedOver handed_;               // named if the server dies
  std::size_t streaming_from_;      // blocks from this size: streaming stores (<buffer copy>)
  bool stopped_ = false;
};

}  // namespace ecluse
