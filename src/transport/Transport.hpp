// How blocks travel from a client to the writer: a direct call (TP), shared memory (dedicated
// cores), MPI messages (dedicated nodes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "block/BlockData.hpp"
#include "block/StridedSource.hpp"
#include "transport/Statistic.hpp"

namespace ecluse {

class Transport {
 public:
  virtual ~Transport() = default;
  /** Hands one block over; `block.data` may be reused by the caller once this returns. With
   * `strided`, the block's elements are where it says (block.data is its first element) and
   * the transport's one copy packs them. False when policy="skip" dropped it (no room): it
   * will not be stored. */
  virtual bool put(const BlockData& block, std::size_t bytes, const StridedSource* strided) = 0;
  /** Zero copy: room for a block described by `block` (data ignored), to fill in place. */
  virtual void* alloc(const BlockData& block, std::size_t bytes) = 0;
  /** The block allocated for (variable, block id) is filled: hand it over. */
  virtual void commit(const Variable& variable, int block) = 0;
  /** Gives up the block allocated for (variable, block id) without handing it over. */
  virtual void clear(const Variable& variable, int block) = 0;
  /** True while (variable, block id) is allocated and neither committed nor cleared. */
  [[nodiscard]] virtual bool allocated_now(const Variable& variable, int block) const = 0;
  /** Throws ECLUSE_ALLOCATION_ERROR when a block of `variable` of `bytes` could never be
   * handed over (larger than what this client may hold at once). */
  virtual void check_capacity(const Variable& /*variable*/, std::size_t /*bytes*/) const {}
  /** Warns (once, at initialize) when an iteration that writes every block of `blocks` (their
   * bytes) needs more than this client may hold: its later writes would be refused. */
  virtual void check_iteration_capacity(const std::vector<std::size_t>& /*blocks*/) {}
  /** The blocks of a whole iteration of this client changed size (a parameter_set): what the
   * message of a block refused for room asks to raise the buffer to. */
  virtual void iteration_blocks_changed(const std::vector<std::size_t>& /*blocks*/) {}
  /** Throws ECLUSE_IO_ERROR when this client's server failed to store an iteration since the
   * last call. */
  virtual void raise_store_failures() {}
  /** Store failures already raised to this client. */
  [[nodiscard]] virtual std::uint32_t store_failures_raised() const { return 0; }
  /** At finalize, once every server has stored all it will: the message of this client's
   * server's store failures that were never raised to it (they came after its last call), or
   * "" when none. `failures` and `texts`: each rank's count and message (by rank of the
   * initialize communicator; servers' store_failure(), clients' 0 and ""). */
  [[nodiscard]] virtual std::string unraised_store_failures(
      const std::vector<std::uint32_t>& /*failures*/,
      const std::vector<std::string>& /*texts*/) const {
    return {};
  }
  /** Every block of `iteration` has been put; the writer may persist them. */
  virtual void end_iteration(int iteration) = 0;
  /** Sends a user event to the server side; false when there is none (run it locally). */
  virtual bool signal(const std::string& event, int iteration) = 0;
  /** This client sends nothing more. */
  virtual void stop() = 0;
  /** After stop: this client sends again (a restarted phase; its server serves again). */
  virtual void restart() {}
  /** Drops blocks allocated but never committed (at the end of their iteration, and at
   * finalize); returns how many. Blocks put but not ended are the servers' to store (DC, DN)
   * or ended at finalize (TP). */
  virtual std::size_t discard() = 0;
  [[nodiscard]] virtual Statistics statistics() const { return {}; }
};

}  // namespace ecluse
