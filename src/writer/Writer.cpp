// Dispatch of an iteration's blocks to the stores.
#include "writer/Writer.hpp"

#include <algorithm>

#include "config/StoreKinds.hpp"
#include "core/Collective.hpp"
#include "ecluse/Error.hpp"
#include "store/StoreRegistry.hpp"

namespace ecluse {
namespace {

// The writers that take turns: every writer (FilePerCore), or the first writer of each node, the
// one that writes the node's file (FilePerNode; the others only hand it their blocks).
MPI_Comm turn_takers(const StoreEnv& env, Hdf5FileMode mode) {
  if (mode != Hdf5FileMode::PerNode) return duplicate(env.comm);
  int node_rank = 0;
  MPI_Comm_rank(env.node_comm, &node_rank);
  return split_bounded(env.comm, node_rank == 0 ? 0 : MPI_UNDEFINED, env.writer);
}

// Collective over env.comm. Null when off, or when there are no more writers than turns.
std::unique_ptr<WriteScheduler> make_schedule(const Store& store, const StoreEnv& env) {
  if (store.type != "HDF5") return nullptr;
  const Hdf5StoreOptions options = hdf5_options(store);
  if (options.concurrent_writers == 0) return nullptr;
  MPI_Comm takers = turn_takers(env, options.mode);
  if (takers == MPI_COMM_NULL) return nullptr;
  int size = 0;
  MPI_Comm_size(takers, &size);
  std::unique_ptr<WriteScheduler> schedule;
  if (size > options.concurrent_writers) {
    schedule = std::make_unique<WriteScheduler>(takers, options.concurrent_writers, store.name);
  }
  MPI_Comm_free(&takers);
  return schedule;
}

}  // namespace

Writer::Writer(const Config& config, const StoreEnv& env, Log& log, Accounting& accounting,
               bool stores)
    : log_(log), accounting_(accounting) {
  StoreEnv logged = env;
  logged.log = &log;
  logged.config = &config;
  for (const Variable& v : config.variables) {
    if (!v.select_file.empty()) index_variables_.insert(v.select_file);
  }
  run_collectively(env.comm, [&] {
    for (const Store& store : config.stores) {
      if (store.enabled && stores) {
        stores_.push_back({&store, make_store(store, logged), nullptr});
      }
    }
  });
  for (BoundStore& store : stores_) store.schedule = make_schedule(*store.config, env);
}

void Writer::write_iteration(int iteration, const std::vector<BlockData>& blocks) {
  PhaseScope scope(accounting_, Phase::Store);
  StoredIteration stored = store(iteration, blocks);
  complete(stored);
  record(stored, blocks);
}

Writer::StoredIteration Writer::store(int iteration, const std::vector<BlockData>& blocks) {
  const double start = wall_clock();
  const double cpu = thread_cpu_clock();
  const double waited = waited_seconds();
  StoredIteration stored;
  stored.iteration = iteration;
  std::vector<BlockData> indices;  // select-file= indices, whichever stores write them
  for (const BlockData& block : blocks) {
    if (index_variables_.count(block.variable->name) != 0) indices.push_back(block);
  }
  std::vector<bool> served(blocks.size(), false);
  for (BoundStore& store : stores_) {
    std::vector<BlockData> mine;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      if (!store_takes(*store.config, *blocks[i].variable, iteration)) continue;
      mine.push_back(blocks[i]);
      served[i] = true;
    }
    try {
      if (!indices.empty()) store.backend->take_indices(indices);
      const TurnScope turn(store.schedule.get(), accounting_);
      if (auto rest = store.backend->write_iteration_deferred(iteration, mine)) {
        if (store.schedule) {
          rest();  // the fsync is disk I/O too: inside the turn that bounds the writers
        } else {
          stored.pending.push_back({store.config, std::move(rest)});
        }
      }
    } catch (const Error& e) {
      stored.failures.push_back({store.config, e});
    }
  }
  const double turns = waited_seconds() - waited;  // not store time: reported on its own
  stored.seconds = wall_clock() - start - turns;
  stored.cpu_seconds = thread_cpu_clock() - cpu;
  stored.served_blocks = static_cast<std::size_t>(std::count(served.begin(), served.end(), true));
  return stored;
}

void Writer::complete(StoredIteration& stored) {
  const double start = wall_clock();
  const double cpu = thread_cpu_clock();
  for (PendingCompletion& pending : stored.pending) {
    try {
      pending.complete();
    } catch (const Error& e) {
      stored.failures.push_back({pending.store, e});
    }
  }
  stored.pending.clear();
  stored.seconds += wall_clock() - start;
  stored.cpu_seconds += thread_cpu_clock() - cpu;
}

void Writer::record(const StoredIteration& stored, const std::vector<BlockData>& blocks) {
  const int iteration = stored.iteration;
  for (const StoreFailure& failure : stored.failures) {
    if (failed_once_.insert(failure.store).second) {
      log_.error("store '" + failure.store->name + "' failed at iteration " +
                 std::to_string(iteration) + ": " + failure.error.what() +
                 " (later failures of this store are counted in the run report, not logged)");
    }
  }
  if (!stored.failures.empty()) {
    last_failure_ = "iteration " + std::to_string(iteration) + " in store '" +
                    stored.failures.front().store->name +
                    "': " + stored.failures.front().error.what();
  }
  // An iteration no store wrote a block of (a store's frequency) is an empty store sample, not
  // an output: it diluted the store time per output tenfold at frequency 10.
  accounting_.add_store(iteration, stored.seconds, stored.served_blocks);
  // Stored on the server's store thread: its time is the rank's store phase (the server's own
  // thread was idle or gathering meanwhile), and its CPU time the store's share of the energy.
  if (stored.off_thread)
    accounting_.add_background(Phase::Store, stored.seconds, stored.cpu_seconds);
  const int failed = static_cast<int>(stored.failures.size());
  if (failed > 0) accounting_.add_store_errors(iteration, failed);
  run_hooks(iteration, blocks);
  if (failed > 0) throw stored.failures.front().error;
}

bool Writer::stores_on_any_thread() const {
  return stores_together().empty();
}

std::string Writer::stores_together() const {
  for (const BoundStore& s : stores_) {
    if (s.schedule != nullptr || !s.backend->runs_on_any_thread()) {
      return "store '" + s.config->name + "'";
    }
  }
  return hooks_.empty() ? "" : "in-situ scripts or plugins";
}

void Writer::leave_schedules() {
  for (BoundStore& store : stores_) {
    if (store.schedule) store.schedule->leave();
  }
}

TurnWaits Writer::turn_waits() const {
  TurnWaits all;
  for (const BoundStore& store : stores_) {
    if (!store.schedule) continue;
    const TurnWaits& waits = store.schedule->waits();
    all.count += waits.count;
    all.seconds += waits.seconds;
    all.longest = std::max(all.longest, waits.longest);
  }
  return all;
}

bool Writer::scheduled() const {
  return std::any_of(stores_.begin(), stores_.end(),
                     [](const BoundStore& store) { return store.schedule != nullptr; });
}

double Writer::waited_seconds() const {
  double seconds = 0;
  for (const BoundStore& store : stores_) {
    if (store.schedule) seconds += store.schedule->waits().seconds;
  }
  return seconds;
}

void Writer::add_hook(std::unique_ptr<IterationHook> hook) {
  hooks_.push_back(std::move(hook));
}

// A hook that fails is logged with its name and the iteration; the stores ran before it (they
// are not affected) and the other hooks still run.
void Writer::run_hooks(int iteration, const std::vector<BlockData>& blocks) {
  for (const auto& hook : hooks_) {
    try {
      hook->on_iteration(iteration, blocks);
    } catch (const std::exception& e) {
      ++hook_failures_;
      log_.error(hook->name() + " failed at iteration " + std::to_string(iteration) + ": " +
                 e.what() + " (the stores ran before it and are not affected; the run goes on)");
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
