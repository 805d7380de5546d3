// HDF5 store in FilePerCore mode: every writer writes its own file per iteration, one dataset
// per block, as Damaris does ("<var>/P<source>" or "<var>/P<source>/B<block>").
#pragma once

#include <string>
#include <vector>

#include "store/Hdf5Support.hpp"
#include "store/StoreBackend.hpp"

namespace ecluse {

class Hdf5FilePerProcessStore final : public StoreBackend {
 public:
  Hdf5FilePerProcessStore(Hdf5Options options, StoreEnv env);
  void write_iteration(int iteration, const std::vector<BlockData>& blocks) override;
  /** The serial driver only: no MPI call, one file per writer. */
  [[nodiscard]] bool runs_on_any_thread() const override { return true; }
  /** With Sync="yes": writes and closes the part, and returns its fsync and rename (without:
   * publishes it, nothing left). */
  Completion write_iteration_deferred(int iteration, const std::vector<BlockData>& blocks) override;

 private:
  /** Writes and closes "<final>.part" (removed on failure); returns the final path, or "" for
   * an iteration without blocks. */
  std::string write_part(int iteration, const std::vector<BlockData>& blocks);
  void write_file(Hdf5Handle& file, const std::string& path, int iteration,
                  const std::vector<BlockData>& blocks) const;

  Hdf5Options options_;
  StoreEnv env_;
};

}  // namespace ecluse
