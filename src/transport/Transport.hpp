// How blocks travel from a client to the writer: a direct call (TP); shared memory (dedicated
// cores) and MPI (dedicated nodes) implement the same interface.
#pragma once

#include "store/StoreBackend.hpp"

namespace ecluse {

class Transport {
 public:
  virtual ~Transport() = default;
  /** Hands one block over; `block.data` may be reused by the caller once this returns. */
  virtual void put(const BlockData& block, std::size_t bytes) = 0;
  /** Every block of `iteration` has been put; the writer may persist them. */
  virtual void end_iteration(int iteration) = 0;
  /** Drops blocks put but never ended (finalize without end_iteration). */
  virtual std::size_t discard() = 0;
};

}  // namespace ecluse
