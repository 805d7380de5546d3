// Dispatch of an iteration's blocks to the stores.
#include "writer/Writer.hpp"

#include <algorithm>
#include <optional>

#include "core/Collective.hpp"
#include "ecluse/Error.hpp"
#include "store/StoreRegistry.hpp"

namespace ecluse {
Writer::Writer(const Config& config, const StoreEnv& env, Log& log, Accounting& accounting,
               bool stores)
    : log_(log), accounting_(accounting) {
  StoreEnv logged = env;
  logged.log = &log;
  run_collectively(env.comm, [&] {
    for (const Store& store : config.stores) {
      if (store.enabled && stores) stores_.push_back({&store, make_store(store, logged)});
    }
  });
}

// A store with frequency f writes the iterations that are multiples of f; a variable that is
// not time-varying is written once, at whichever iteration it comes, so it is never skipped.
bool Writer::serves(const BoundStore& store, const Variable& variable, int iteration) {
  if (iteration % store.config->frequency != 0 && variable.time_varying) return false;
  if (variable.every_store) return true;
  return std::find(variable.stores.begin(), variable.stores.end(), store.config->name) !=
         variable.stores.end();
}

void Writer::write_iteration(int iteration, const std::vector<BlockData>& blocks) {
  PhaseScope scope(accounting_, Phase::Store);
  const double start = wall_clock();
  std::optional<Error> first;
  int failed = 0;
  for (BoundStore& store : stores_) {
    std::vector<BlockData> mine;
    for (const BlockData& block : blocks) {
      if (serves(store, *block.variable, iteration)) mine.push_back(block);
    }
    try {
      store.backend->write_iteration(iteration, mine);
    } catch (const Error& e) {
      if (failed_once_.insert(store.config).second) {
        log_.error("store '" + store.config->name + "' failed at iteration " +
                   std::to_string(iteration) + ": " + e.what() +
                   " (later failures of this store are counted in the run report, not logged)");
      }
      if (!first) {
        first = e;
        last_failure_ = "iteration " + std::to_string(iteration) + " in store '" +
                        store.config->name + "': " + e.what();
      }
      ++failed;
    }
  }
  accounting_.add_store(iteration, wall_clock() - start, blocks.size());
  if (failed > 0) accounting_.add_store_errors(iteration, failed);
  run_hooks(iteration, blocks);
  if (first) throw *first;
}

void Writer::add_hook(std::unique_ptr<IterationHook> hook) {
  hooks_.push_back(std::move(hook));
}

// A hook that fails is logged with its name and the iteration; the blocks are already stored
// and the other hooks still run.
void Writer::run_hooks(int iteration, const std::vector<BlockData>& blocks) {
  for (const auto& hook : hooks_) {
    try {
      hook->on_iteration(iteration, blocks);
    } catch (const std::exception& e) {
      ++hook_failures_;
      log_.error(hook->name() + " failed at iteration " + std::to_string(iteration) + ": " +
                 e.what() + " (the iteration's data is stored)");
    }
  }
}

void Writer::finish_hooks() {
  if (hooks_finished_) return;
  hooks_finished_ = true;
  for (const auto& hook : hooks_) {
    try {
      hook->finish();
    } catch (const std::exception& e) {
      ++hook_failures_;
      log_.error(hook->name() + " failed at finalize: " + e.what());
    }
  }
}

}  // namespace ecluse
