// HDF5 store in FilePerNode mode: one file per node and iteration holding every block of every
// writer of the node, with the datasets and attributes of FilePerCore ("<var>/P<source>...").
#pragma once

#include <string>
#include <vector>

#include "store/Hdf5Support.hpp"
#include "store/StoreBackend.hpp"

namespace ecluse {

struct NodeWriterBlocks;

/** The node's first writer (rank 0 of env.node_comm) writes the file with serial HDF5 while the
 * other writers of the node stream it their blocks over MPI. Only env.node_comm is used, so
 * nodes never wait for each other; every writer of a node throws the same error. */
class Hdf5FilePerNodeStore final : public StoreBackend {
 public:
  /** env.node_comm may be MPI_COMM_NULL: the writer is then alone on its node. */
  Hdf5FilePerNodeStore(Hdf5Options options, StoreEnv env);
  void write_iteration(int iteration, const std::vector<BlockData>& blocks) override;

 private:
  void write_as_leader(const std::string& path, int iteration,
                       const std::vector<NodeWriterBlocks>& node,
                       const std::vector<BlockData>& blocks) const;
  void send_to_leader(const std::vector<BlockData>& blocks) const;
  Hdf5Handle create_file(const std::string& path, int iteration,
                         const std::vector<NodeWriterBlocks>& node, bool& created) const;
  void write_blocks(hid_t file, const std::string& path, const std::vector<NodeWriterBlocks>& node,
                    const std::vector<BlockData>& blocks) const;
  [[nodiscard]] bool is_leader() const;

  Hdf5Options options_;
  StoreEnv env_;
};

}  // namespace ecluse
