// HDF5 store in Collective mode: all writers write one shared file per iteration through
// MPI-IO, one dataset per variable at its global extent, every block at its position.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "store/Hdf5Support.hpp"
#include "store/StoreBackend.hpp"

namespace ecluse {

struct CollectiveVariable;
struct DatasetEncoding;

/** Every HDF5 call here is collective on env.comm, so every decision that could differ between
 * writers (which datasets, their extents, whether a step failed) is first agreed over MPI:
 * all writers then take the same path and throw the same error, and none is left waiting. */
class Hdf5CollectiveStore final : public StoreBackend {
 public:
  Hdf5CollectiveStore(Hdf5Options options, StoreEnv env);
  void write_iteration(int iteration, const std::vector<BlockData>& blocks) override;
  /** Keeps, per (index variable, source, block), the element indices of select-file=. */
  void take_indices(const std::vector<BlockData>& index_blocks) override;
  [[nodiscard]] std::set<std::string> variables_split() const override { return split_; }

  /** A block's select-file= index in increasing order: element order[j] of the block's
   * interior goes to dataset index sorted[j]. MPI-IO takes points in increasing order: HDF5
   * writes unsorted points about 400 times slower (26 s against 0.06 s for 10^6 doubles). */
  struct Selection {
    std::vector<std::int64_t> sorted;
    std::vector<std::uint64_t> order;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> runs;  // sorted's (start, count) runs
    std::uint64_t elements = 0;  // the block's elements (more than sorted's if cells repeat)
    std::uint64_t serial = 0;    // take_indices' count when this index came in (0: none yet)
  };
  /** (index variable, client, block) -> the selection of that block. */
  using Selections = std::map<std::tuple<std::string, int, int>, Selection>;

 private:
  void write_file(const std::string& path, int iteration,
                  const std::vector<CollectiveVariable>& plan,
                  const std::vector<BlockData>& blocks) const;
  void write_into(Hdf5Handle& file, const std::string& path, int iteration,
                  const std::vector<CollectiveVariable>& plan,
                  const std::vector<BlockData>& blocks) const;
  void write_blocks(hid_t dataset, const CollectiveVariable& variable,
                    const DatasetEncoding& encoding, const std::vector<const BlockData*>& mine,
                    const std::string& path) const;
  void write_variable(hid_t file, const CollectiveVariable& variable,
                      const std::vector<const BlockData*>& mine, const std::string& path) const;
  void write_pieces(hid_t file, const CollectiveVariable& variable,
                    const std::vector<const BlockData*>& mine, const std::string& path) const;
  Hdf5Handle create_file(const std::string& path) const;
  /** Closes a file or dataset on an error path (every writer does, after run_collectively
   * agreed on the failure): collective in parallel HDF5, so under the watchdog as well. */
  void close_after_failure(Hdf5Handle& handle, const std::string& path) const noexcept;
  void warn_uncovered(int iteration, const std::vector<CollectiveVariable>& plan);
  /** Sets each planned variable's count of cells no block writes. */
  void count_unwritten(std::vector<CollectiveVariable>& plan) const;
  void check_indices(int iteration, const std::vector<CollectiveVariable>& plan,
                     const std::vector<BlockData>& blocks);
  [[nodiscard]] bool is_root() const;
  [[nodiscard]] Dialect dialect() const;

  Hdf5Options options_;
  StoreEnv env_;
  std::set<std::string> warned_;    // variables already warned about cells left unwritten
  Selections selections_;           // kept across iterations: an index is often written once
  std::uint64_t index_serial_ = 0;  // indices taken with new values so far
  // Per variable placed by select-file=, the newest index (serial) whose union was checked.
  std::map<std::string, std::uint64_t> index_checked_;
  // Per variable placed by select-file=, the cells its indices named by none when last checked.
  std::map<std::string, std::uint64_t> index_unwritten_;
  std::set<std::string> split_;  // the last iteration's variables written one dataset per block
};

}  // namespace ecluse
