// The writer side: runs every configured store on the blocks of an iteration.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "accounting/Accounting.hpp"
#include "config/Config.hpp"
#include "core/Log.hpp"
#include "ecluse/Error.hpp"
#include "store/StoreBackend.hpp"
#include "writer/IterationHook.hpp"
#include "writer/WriteScheduler.hpp"

namespace ecluse {

class Writer {
 public:
  /** One store's failure on one iteration. */
  struct StoreFailure {
    const Store* store;
    Error error;
  };
  /** What the stores did with one iteration, measured where they ran. */
  /** A store's deferred end of an iteration's write (StoreBackend::Completion). */
  struct PendingCompletion {
    const Store* store;
    StoreBackend::Completion complete;
  };
  struct StoredIteration {
    int iteration = 0;
    double seconds = 0;             // the stores' wall time, turns waited excluded
    double cpu_seconds = 0;         // the CPU time of the threads that ran them
    bool off_thread = false;        // stored on a thread of its own (a server's store thread)
    std::size_t served_blocks = 0;  // blocks some store wrote (a store's frequency skips some)
    std::vector<StoreFailure> failures;
    std::vector<PendingCompletion> pending;  // run by complete() before it counts as stored
  };

  /** Creates one backend per <store>; collective over env.comm (errors agreed by all). */
  /** Without `stores`, no store is made (an analysis dedicated core's writer: hooks only). */
  Writer(const Config& config, const StoreEnv& env, Log& log, Accounting& accounting,
         bool stores = true);
  /** Runs every store with the blocks of the variables it serves; every store runs even if
   * one fails, then the first error is thrown. Collective over env.comm. */
  void write_iteration(int iteration, const std::vector<BlockData>& blocks);
  /** The stores' part of write_iteration: runs every store, keeps the failures, and touches
   * neither the log nor the accounting nor the hooks. With stores_on_any_thread() it may run
   * on a thread of its own (a server's store thread). */
  [[nodiscard]] StoredIteration store(int iteration, const std::vector<BlockData>& blocks);
  /** Runs what store() left pending (fsyncs, renames), in order, adding its time and its
   * failures to `stored`. Touches nothing of the writer's: may run on another thread while
   * store() writes the next iteration. */
  static void complete(StoredIteration& stored);
  /** The rest of write_iteration, on the thread that owns the log and the accounting: records
   * the time and the failures, runs the hooks, then throws the first failure. */
  void record(const StoredIteration& stored, const std::vector<BlockData>& blocks);
  /** True when store() makes no MPI call (every store says so, none is scheduled) and there
   * are no hooks: a server may then store on a thread of its own. */
  [[nodiscard]] bool stores_on_any_thread() const;
  /** What makes the writers store each iteration together (MPI calls in store() or a hook),
   * for messages: "store 'S'" or "in-situ hooks"; empty when nothing does. */
  [[nodiscard]] std::string stores_together() const;
  /** The last failure thrown by write_iteration: "iteration I in store 'S': cause". */
  [[nodiscard]] const std::string& last_failure() const { return last_failure_; }
  /** In-situ work run after the stores on every iteration (see IterationHook), in the order
   * added. */
  void add_hook(std::unique_ptr<IterationHook> hook);
  /** Calls every hook's finish() once (at finalize). */
  void finish_hooks();
  /** Leaves the write schedules (ConcurrentWriters): collective with the writers that still
   * write; call once this writer has written its last iteration (at finalize). */
  void leave_schedules();
  /** The time this writer waited for its turns, over every scheduled store. */
  [[nodiscard]] TurnWaits turn_waits() const;
  [[nodiscard]] bool scheduled() const;
  /** Hook runs that threw so far. */
  [[nodiscard]] std::uint64_t hook_failures() const { return hook_failures_; }

 private:
  struct BoundStore {
    const Store* config;
    std::unique_ptr<StoreBackend> backend;
    std::unique_ptr<WriteScheduler> schedule;  // null: writes at once
  };
  [[nodiscard]] double waited_seconds() const;
  void run_hooks(int iteration, const std::vector<BlockData>& blocks);
  std::vector<BoundStore> stores_;
  std::vector<std::unique_ptr<IterationHook>> hooks_;
  std::uint64_t hook_failures_ = 0;
  bool hooks_finished_ = false;
  std::set<const Store*> failed_once_;     // a store's failure is logged once, then counted
  std::set<std::string> index_variables_;  // named by a select-file=: given to every store
  std::string last_failure_;
  Log& log_;
  Accounting& accounting_;
};

}  // namespace ecluse
