// One output iteration written straight with parallel HDF5, as a simulation does without
// middleware: one file per process, or one shared file through collective MPI-IO writes.
#pragma once

#include <hdf5.h>
#include <mpi.h>

#include <string>
#include <vector>

namespace baselines {

enum class FileLayout {
  FilePerProcess,  ///< <name>_It<it>_Pr<rank>.h5, each variable at the rank's block size
  Collective,      ///< <name>_It<it>.h5, each variable at its global size (Ecluse's Collective)
};

/** The name of a layout in the JSON summary and on the command line. */
const char* approach_name(FileLayout layout);

/** One rank's part of a variable: the array in memory and where its interior goes. */
struct Block {
  std::string name;
  hid_t type;  ///< H5T_NATIVE_DOUBLE, H5T_NATIVE_FLOAT, H5T_NATIVE_INT32
  const void* data;
  std::vector<hsize_t> memory;  ///< the array in memory, ghost cells included
  std::vector<hsize_t> start;   ///< first interior element in memory
  std::vector<hsize_t> count;   ///< interior size
  std::vector<hsize_t> offset;  ///< place of the interior in the global array
  std::vector<hsize_t> global;  ///< size of the global array
};

class Hdf5Output {
 public:
  /** Collective over comm: rank 0 creates `directory` before anyone writes into it. */
  Hdf5Output(MPI_Comm comm, FileLayout layout, std::string directory, std::string name);

  /** Writes every block of one output iteration into its file(s) (collective over comm). */
  void write_iteration(int iteration, const std::vector<Block>& blocks) const;

 private:
  [[nodiscard]] std::string path(int iteration) const;
  [[nodiscard]] hid_t create_file(const std::string& path) const;
  void write_block(hid_t file, const Block& block, const std::string& path) const;

  MPI_Comm comm_;
  FileLayout layout_;
  std::string directory_;
  std::string name_;
  int rank_ = 0;
};

}  // namespace baselines
