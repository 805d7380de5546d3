// The interface every storage plugin implements, and where an instance runs.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "block/BlockData.hpp"
#include "config/Config.hpp"
#include "core/Log.hpp"

namespace ecluse {

/** What a store instance needs to know about where it runs. */
struct StoreEnv {
  MPI_Comm comm = MPI_COMM_NULL;       // every writer taking part (clients in TP, servers later)
  int writer = 0;                      // this writer's rank in comm
  MPI_Comm node_comm = MPI_COMM_NULL;  // the writers of this writer's node (a subset of comm)
  int node = 0;                        // this writer's node, numbered from 0
  int domains = 1;                     // blocks per client, decides the dataset naming scheme
  std::string simulation;              // <simulation name>
  Log* log = nullptr;                  // for warnings that are not errors (set by the Writer)
  const Config* config = nullptr;      // the whole configuration (meshes), set by the Writer
};

/** A storage plugin instance, created once per <store> element. */
class StoreBackend {
 public:
  virtual ~StoreBackend() = default;
  /** Called on every writer of env.comm at the end of each iteration, with the blocks this
   * writer holds for this store (possibly none): collective stores may use MPI on env.comm.
   * Throws ecluse::Error; earlier iterations' files must stay intact. */
  virtual void write_iteration(int iteration, const std::vector<BlockData>& blocks) = 0;
  /** True when write_iteration makes no MPI call and uses no state of the calling thread (the
   * log), so that a server may run it on its store thread while it receives the next
   * iteration. Only one thread ever calls write_iteration. */
  [[nodiscard]] virtual bool runs_on_any_thread() const { return false; }

  /** What is left of an iteration's write after write_iteration_deferred returned (an fsync,
   * then the rename to the final name); throws ecluse::Error. It shares no state with the
   * store: it may run on another thread while the store writes the next iteration. */
  using Completion = std::function<void()>;
  /** As write_iteration, but may return the durable end of the write as a completion instead
   * of doing it: the caller runs it before the iteration counts as stored, in order, and may
   * meanwhile write the next iteration (a server's store thread overlaps one file's fsync with
   * the next file's write). Only for stores that run on any thread. Default: write_iteration,
   * nothing left. */
  virtual Completion write_iteration_deferred(int iteration, const std::vector<BlockData>& blocks) {
    write_iteration(iteration, blocks);
    return {};
  }
  /** Before each write_iteration, every block of this iteration of the variables named by a
   * select-file= (Damaris) whether or not this store writes them: a store that places elements
   * by index copies what it needs (the data is valid during the call only). Default: ignored;
   * a store that wraps another forwards it. */
  virtual void take_indices(const std::vector<BlockData>& index_blocks) { (void)index_blocks; }
  /** The variables the last write_iteration wrote one dataset per block, <var>/P<source>
   * [/B<block>], instead of one dataset (the Collective store, for a Damaris file's blocks
   * without a position); the XDMF store describes them so. Default: none. */
  [[nodiscard]] virtual std::set<std::string> variables_split() const { return {}; }
};

}  // namespace ecluse
