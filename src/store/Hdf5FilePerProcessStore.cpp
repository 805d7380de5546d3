// HDF5 store in FilePerCore mode: one file per writer and iteration, one dataset per block.
#include "store/Hdf5FilePerProcessStore.hpp"

#include <filesystem>
#include <utility>

namespace ecluse {
namespace {

// SEMI: closing the file fails while an object is still open instead of silently delaying the
// flush, so a successful close really means the data reached the file before the rename.
Hdf5Handle file_access_list(const std::string& path) {
  Hdf5Handle fapl = hdf5_own(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "create a property list", path);
  hdf5_check(H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_SEMI), "set the close degree", path);
  return fapl;
}

void write_block_attributes(hid_t dataset, const BlockData& block, const std::string& path) {
  write_int_attribute(dataset, "iteration", block.iteration, path);
  write_int_attribute(dataset, "source", block.source, path);
  write_int_attribute(dataset, "block", block.block, path);
  write_int_array_attribute(dataset, "global_offset", block_position(block), path);
  write_string_attribute(dataset, "units", block.variable->unit, path);
}

std::uint64_t payload_bytes(const std::vector<BlockData>& blocks) {
  std::uint64_t bytes = 0;
  for (const BlockData& block : blocks) {
    bytes += element_count(block.interior()) * data_type_size(block.type);
  }
  return bytes;
}

}  // namespace

Hdf5FilePerProcessStore::Hdf5FilePerProcessStore(Hdf5Options options, StoreEnv env)
    : options_(std::move(options)), env_(std::move(env)) {}

std::string Hdf5FilePerProcessStore::dataset_path(const BlockData& block, int domains) {
  std::string path = block.variable->name + "/P" + std::to_string(block.source);
  if (domains != 1) path += "/B" + std::to_string(block.block);
  return path;
}

void Hdf5FilePerProcessStore::write_iteration(int iteration, const std::vector<BlockData>& blocks) {
  if (blocks.empty()) return;
  for (const BlockData& block : blocks) check_block(block, options_.store_name);
  quiet_hdf5_errors();
  const std::string path = output_file_path(options_, env_.simulation, iteration, env_.writer);
  ensure_output_directory(std::filesystem::path(path).parent_path().string(), options_.store_name);
  try {
    write_file(path, iteration, blocks);
  } catch (...) {
    discard_part(path);
    throw;
  }
  publish_part(path);
}

void Hdf5FilePerProcessStore::write_file(const std::string& path, int iteration,
                                         const std::vector<BlockData>& blocks) const {
  Hdf5Handle fapl = file_access_list(path);
  Hdf5Handle file =
      hdf5_own(H5Fcreate(part_path(path).c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose,
               "create the file", path);
  write_file_attributes(file.get(), env_.simulation, iteration, env_.writer, path);
  // Flushed first, so that the small file left if the reservation fails closes cleanly.
  hdf5_check(H5Fflush(file.get(), H5F_SCOPE_LOCAL), "flush the file", path);
  reserve_space(path, reservation_size(payload_bytes(blocks), blocks.size()), options_.store_name);
  for (const BlockData& block : blocks) write_block(file.get(), block, path);
  // The serial driver keeps the file at its reserved size: cut the unused margin.
  hsize_t size = 0;
  hdf5_check(H5Fget_filesize(file.get(), &size), "get the file size", path);
  hdf5_check(file.close(), "close the file", path);
  trim_part(path, size);
}

void Hdf5FilePerProcessStore::write_block(hid_t file, const BlockData& block,
                                          const std::string& path) const {
  const std::string name = dataset_path(block, env_.domains);
  const hid_t type = native_type(block.type);
  Hdf5Handle file_space = make_dataspace(block.interior(), path);
  Hdf5Handle memory_space = interior_memory_space(block, path);
  Hdf5Handle lcpl = intermediate_group_lcpl(path);
  Hdf5Handle dataset = hdf5_own(
      H5Dcreate2(file, name.c_str(), type, file_space.get(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT),
      H5Dclose, "create dataset '" + name + "'", path);
  if (element_count(block.interior()) > 0) {
    hdf5_check(H5Dwrite(dataset.get(), type, memory_space.get(), H5S_ALL, H5P_DEFAULT, block.data),
               "write dataset '" + name + "'", path);
  }
  write_block_attributes(dataset.get(), block, path);
}

}  // namespace ecluse
