// HDF5 store in Collective mode: one file per iteration shared by all writers through MPI-IO.
// Here the iteration's steps; its plan, HDF5 writes and cell coverage have a file each.
#include "store/Hdf5CollectiveStore.hpp"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "core/Collective.hpp"
#include "store/Compression.hpp"
#include "store/Hdf5CollectivePlan.hpp"

namespace ecluse {

Hdf5CollectiveStore::Hdf5CollectiveStore(Hdf5Options options, StoreEnv env)
    : options_(std::move(options)), env_(std::move(env)) {
  check_compression_built(options_.compression, options_.store_name);
}

Dialect Hdf5CollectiveStore::dialect() const {
  return env_.config == nullptr ? Dialect::Ecluse : env_.config->dialect;
}

bool Hdf5CollectiveStore::is_root() const {
  int rank = 0;
  MPI_Comm_rank(env_.comm, &rank);
  return rank == 0;
}

void Hdf5CollectiveStore::write_iteration(int iteration, const std::vector<BlockData>& blocks) {
  quiet_hdf5_errors();
  split_.clear();
  const CollectiveContext context{options_.store_name, env_.config, iteration};
  WriterSummary mine = summarize(blocks, selections_, context);
  for (CollectiveVariable& v : mine.variables) {
    const auto checked = index_checked_.find(v.name);
    v.fresh = v.serial > (checked == index_checked_.end() ? 0 : checked->second);
  }
  const auto packed = gather_strings(env_.comm, pack(mine));
  // Overlapping blocks of a Damaris file are written independently (MPI-IO's collective
  // buffering does not take overlapping requests); compressed datasets need collective writes.
  const bool damaris = dialect() == Dialect::Damaris;
  const Leniency lenient{damaris && options_.compression.method == Hdf5Compression::None, damaris};
  CollectivePlan agreed = merge(packed, lenient, context);
  agree_on_copies(agreed, blocks, env_.comm, lenient, context);
  const std::vector<CollectiveVariable>& plan = agreed.variables;
  if (plan.empty() && !agreed.refused.empty()) throw agreed.refused.front().error;
  if (plan.empty()) return;
  for (const CollectiveVariable& v : plan) {
    if (v.per_block) split_.insert(v.name);
  }
  check_indices(iteration, plan, blocks);
  count_unwritten(agreed.variables);
  for (const CollectiveVariable& v : mine.variables) {
    const bool planned = std::any_of(plan.begin(), plan.end(),
                                     [&](const CollectiveVariable& p) { return p.name == v.name; });
    if (v.serial > 0 && planned) index_checked_[v.name] = v.serial;
  }
  warn_uncovered(iteration, plan);
  const std::string path = output_file_path(options_, env_.simulation, iteration, 0, 0);
  const std::string directory = std::filesystem::path(path).parent_path().string();
  run_collectively(env_.comm, [&] {
    if (is_root()) ensure_output_directory(directory, options_.store_name, options_.sync);
    if (is_root()) check_part_absent(path);  // before the try: that part is not ours
  });
  try {
    write_file(path, iteration, plan, blocks);
    // Every writer flushes what it wrote (on a parallel file system, its own client's cache)
    // before the first one renames: the others here, the first in publish_part.
    if (options_.sync) {
      run_collectively(env_.comm, [&] {
        if (!is_root()) sync_part(path, options_.store_name);
      });
    }
  } catch (...) {
    if (is_root()) discard_part(path);
    throw;
  }
  run_collectively(env_.comm, [&] {
    if (is_root()) publish_part(path, options_);
  });
  // Written without the refused variables: the simulation hears of them all the same.
  if (!agreed.refused.empty()) throw partial_error(agreed);
}

}  // namespace ecluse
