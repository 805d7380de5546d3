// Plain parallel HDF5 output. The collective file uses the settings Ecluse's Collective store
// uses (MPI-IO, collective transfers and metadata, no fill values), so that a comparison
// measures the middleware, not different HDF5 tuning.
#include "Hdf5Output.hpp"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <utility>

namespace baselines {

namespace {

// Like the apps' APP_CHECK: the other ranks may wait in a collective call, so abort the job.
hid_t check(hid_t result, const char* what, const std::string& path) {
  if (result >= 0) return result;
  std::fprintf(stderr, "baseline: cannot %s (%s)\n", what, path.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  return result;
}

/** Closes an HDF5 identifier at the end of its scope. */
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() { close_(id_); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  [[nodiscard]] hid_t get() const { return id_; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

hid_t dataspace(const std::vector<hsize_t>& dims, const std::string& path) {
  return check(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
               "create a dataspace", path);
}

void select(hid_t space, const std::vector<hsize_t>& start, const std::vector<hsize_t>& count,
            const std::string& path) {
  check(H5Sselect_hyperslab(space, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
        "select a hyperslab", path);
}

// Allocated at creation by parallel HDF5: fill values would write every byte twice.
hid_t no_fill(const std::string& path) {
  const hid_t dcpl = check(H5Pcreate(H5P_DATASET_CREATE), "create a property list", path);
  check(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), "disable fill values", path);
  return dcpl;
}

hid_t transfer(FileLayout layout, const std::string& path) {
  const hid_t dxpl = check(H5Pcreate(H5P_DATASET_XFER), "create a property list", path);
  if (layout == FileLayout::Collective) {
    check(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), "request collective I/O", path);
  }
  return dxpl;
}

void write_offset_attribute(hid_t dataset, const std::vector<hsize_t>& offset,
                            const std::string& path) {
  const std::vector<std::int64_t> values(offset.begin(), offset.end());
  const hsize_t size = values.size();
  const Handle space(dataspace({size}, path), H5Sclose);
  const Handle attribute(check(H5Acreate2(dataset, "global_offset", H5T_NATIVE_INT64, space.get(),
                                          H5P_DEFAULT, H5P_DEFAULT),
                               "create attribute 'global_offset'", path),
                         H5Aclose);
  check(H5Awrite(attribute.get(), H5T_NATIVE_INT64, values.data()), "write an attribute", path);
}

}  // namespace

const char* approach_name(FileLayout layout) {
  return layout == FileLayout::Collective ? "hdf5-collective" : "hdf5-fpp";
}

Hdf5Output::Hdf5Output(MPI_Comm comm, FileLayout layout, std::string directory, std::string name)
    : comm_(comm), layout_(layout), directory_(std::move(directory)), name_(std::move(name)) {
  MPI_Comm_rank(comm_, &rank_);
  if (rank_ == 0) std::filesystem::create_directories(directory_);
  MPI_Barrier(comm_);
}

std::string Hdf5Output::path(int iteration) const {
  std::string file = directory_ + "/" + name_ + "_It" + std::to_string(iteration);
  if (layout_ == FileLayout::FilePerProcess) file += "_Pr" + std::to_string(rank_);
  return file + ".h5";
}

hid_t Hdf5Output::create_file(const std::string& file) const {
  const Handle fapl(check(H5Pcreate(H5P_FILE_ACCESS), "create a property list", file), H5Pclose);
  if (layout_ == FileLayout::Collective) {
    check(H5Pset_fapl_mpio(fapl.get(), comm_, MPI_INFO_NULL), "select MPI-IO", file);
    check(H5Pset_all_coll_metadata_ops(fapl.get(), 1), "make metadata reads collective", file);
    check(H5Pset_coll_metadata_write(fapl.get(), 1), "make metadata writes collective", file);
  }
  return check(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), "create the file",
               file);
}

void Hdf5Output::write_iteration(int iteration, const std::vector<Block>& blocks) const {
  const std::string file = path(iteration);
  const Handle handle(create_file(file), H5Fclose);
  for (const Block& block : blocks) write_block(handle.get(), block, file);
}

void Hdf5Output::write_block(hid_t file, const Block& block, const std::string& path) const {
  const bool collective = layout_ == FileLayout::Collective;
  const Handle file_space(dataspace(collective ? block.global : block.count, path), H5Sclose);
  const Handle dcpl(no_fill(path), H5Pclose);
  const Handle dataset(check(H5Dcreate2(file, block.name.c_str(), block.type, file_space.get(),
                                        H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                             "create a dataset", path),
                       H5Dclose);
  if (collective) select(file_space.get(), block.offset, block.count, path);
  const Handle memory_space(dataspace(block.memory, path), H5Sclose);
  select(memory_space.get(), block.start, block.count, path);
  const Handle dxpl(transfer(layout_, path), H5Pclose);
  check(H5Dwrite(dataset.get(), block.type, memory_space.get(), file_space.get(), dxpl.get(),
                 block.data),
        "write a dataset", path);
  // Per process, the block's place in the global array is needed to put the pieces together.
  if (!collective) write_offset_attribute(dataset.get(), block.offset, path);
}

}  // namespace baselines
