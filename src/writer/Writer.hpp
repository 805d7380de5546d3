// The writer side: runs every configured store on the blocks of an iteration.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "accounting/Accounting.hpp"
#include "config/Config.hpp"
#include "core/Log.hpp"
#include "store/StoreBackend.hpp"
#include "writer/IterationHook.hpp"
#include "writer/WriteScheduler.hpp"

namespace ecluse {

class Writer {
 public:
  /** Creates one backend per <store>; collective over env.comm (errors agreed by all). */
  /** Without `stores`, no store is made (an analysis dedicated core's writer: hooks only). */
  Writer(const Config& config, const StoreEnv& env, Log& log, Accounting& accounting,
         bool stores = true);
  /** Runs every store with the blocks of the variables it serves; every store runs even if
   * one fails, then the first error is thrown. Collective over env.comm. */
  void write_iteration(int iteration, const std::vector<BlockData>& blocks);
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
  [[nodiscard]] static bool serves(const BoundStore& store, const Variable& variable,
                                   int iteration);
  [[nodiscard]] double waited_seconds() const;
  void run_hooks(int iteration, const std::vector<BlockData>& blocks);
  std::vector<BoundStore> stores_;
  std::vector<std::unique_ptr<IterationHook>> hooks_;
  std::uint64_t hook_failures_ = 0;
  bool hooks_finished_ = false;
  std::set<const Store*> failed_once_;  // a store's failure is logged once, then counted
  std::string last_failure_;
  Log& log_;
  Accounting& accounting_;
};

}  // namespace ecluse
