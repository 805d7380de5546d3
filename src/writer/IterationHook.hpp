// In-situ work on an iteration's blocks, run by the writer after its stores (plugin actions,
// Python scripts): on the dedicated cores and nodes in DC and DN, on the clients in TP.
#pragma once

#include <string>
#include <vector>

#include "block/BlockData.hpp"

namespace ecluse {

/** One piece of in-situ work. `on_iteration` sees every block of an iteration that reached
 * this writer, once, after the stores ran (whether or not they succeeded) and before the blocks
 * are released: the data pointers point into the server's buffer (the node's shared memory in
 * DC), read-only, valid only during the call. An exception is logged by the writer with the
 * hook's name and the iteration; it never loses the iteration's data (already stored). */
class IterationHook {
 public:
  virtual ~IterationHook() = default;
  /** For messages and the report: e.g. "action 'stats'" or "pyscript 'plot'". */
  [[nodiscard]] virtual std::string name() const = 0;
  virtual void on_iteration(int iteration, const std::vector<BlockData>& blocks) = 0;
  /** At finalize (or the end of a served phase), after the last iteration: collective over the
   * writers' communicator when the hook says so in its documentation. */
  virtual void finish() {}
};

}  // namespace ecluse
