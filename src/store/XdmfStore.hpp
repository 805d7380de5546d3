// The XDMF decorator of an HDF5 store: once the HDF5 files of an iteration are published, the
// first writer describes them in an XDMF file and rewrites the temporal collection.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "config/StoreKinds.hpp"
#include "store/Hdf5Support.hpp"
#include "store/StoreBackend.hpp"
#include "store/XdmfDocument.hpp"

namespace ecluse {

/** Damaris's XDMFMode: no XDMF, the first iteration written only, or every iteration. */
enum class XdmfMode { NoIteration, FirstIteration, EveryIteration };

/** "NoIteration" ... ; anything else is NoIteration (the reader checked the value). */
XdmfMode xdmf_mode_of(const std::string& text);

/** Where an iteration's XDMF document goes: "<directory>/<simulation>_It<iteration>.xmf". */
std::string xdmf_iteration_path(const std::string& directory, const std::string& simulation,
                                int iteration);
/** The temporal collection: "<directory>/<simulation>.xmf". */
std::string xdmf_temporal_path(const std::string& directory, const std::string& simulation);

/** Wraps an HDF5 store; every call stays collective over env.comm (a writer whose HDF5 write
 * failed still takes part, then rethrows). */
class XdmfStore final : public StoreBackend {
 public:
  XdmfStore(std::unique_ptr<StoreBackend> hdf5, XdmfMode mode, Hdf5FileMode file_mode,
            Hdf5Options options, std::vector<XdmfMesh> meshes, StoreEnv env);
  /** Writes the temporal collection's last steps, if not written yet. */
  ~XdmfStore() override;
  XdmfStore(const XdmfStore&) = delete;
  XdmfStore& operator=(const XdmfStore&) = delete;
  void write_iteration(int iteration, const std::vector<BlockData>& blocks) override;
  void take_indices(const std::vector<BlockData>& index_blocks) override {
    hdf5_->take_indices(index_blocks);
  }

 private:
  [[nodiscard]] std::string describe(int iteration, const std::vector<BlockData>& blocks) const;
  [[nodiscard]] std::vector<XdmfArray> arrays_of(const std::vector<std::string>& packed);
  void write_documents(int iteration, const std::vector<std::string>& packed);
  void warn(const std::string& line);
  [[nodiscard]] bool temporal_due() const;
  void write_temporal();

  std::unique_ptr<StoreBackend> hdf5_;
  XdmfMode mode_;
  Hdf5FileMode file_mode_;
  Hdf5Options options_;
  std::vector<XdmfMesh> meshes_;
  StoreEnv env_;
  int rank_ = 0;       // in env.comm; rank 0 writes the documents
  bool done_ = false;  // FirstIteration written
  std::map<std::string, std::vector<XdmfArray>> constants_;  // first writer: last seen
  // First writer: the temporal collection's steps (text), how many, how many are on disk.
  std::string temporal_steps_;
  std::size_t steps_ = 0, temporal_written_ = 0;
  std::chrono::steady_clock::time_point temporal_written_at_{};
  std::set<std::string> warned_;
};

}  // namespace ecluse
