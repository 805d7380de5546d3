// HDF5 store in FilePerCore mode: one file per writer and iteration, one dataset per block.
#include "store/Hdf5FilePerProcessStore.hpp"

#include <filesystem>
#include <utility>

#include "store/Compression.hpp"

namespace ecluse {
namespace {

std::uint64_t payload_bytes(const std::vector<BlockData>& blocks,
                            const CompressionSettings& compression) {
  std::uint64_t bytes = 0;
  for (const BlockData& block : blocks) {
    bytes += stored_bytes_bound(interior_bytes(block), block.type, compression);
  }
  return bytes;
}

}  // namespace

Hdf5FilePerProcessStore::Hdf5FilePerProcessStore(Hdf5Options options, StoreEnv env)
    : options_(std::move(options)), env_(std::move(env)) {
  check_compression_built(options_.compression, options_.store_name);
  // Initialized here, on the thread that owns MPI: a parallel HDF5 registers itself with MPI
  // at initialization, and write_iteration may run on a server's store thread.
  hdf5_check(H5open(), "initialize the library", options_.directory);
}

void Hdf5FilePerProcessStore::write_iteration(int iteration, const std::vector<BlockData>& blocks) {
  if (const Completion complete = write_iteration_deferred(iteration, blocks)) complete();
}

StoreBackend::Completion Hdf5FilePerProcessStore::write_iteration_deferred(
    int iteration, const std::vector<BlockData>& blocks) {
  const std::string path = write_part(iteration, blocks);
  if (path.empty()) return {};
  // Only an fsync is worth handing to another thread; a rename alone is done here. So is one
  // whose FileName has no {iteration}: the next iteration writes the same part, which must not
  // find this one still there.
  if (!options_.sync || options_.file_name.find("{iteration}") == std::string::npos) {
    publish_part(path, options_);
    return {};
  }
  // By value: the completion may run on another thread while this store writes on.
  return [path, options = options_] { publish_part(path, options); };
}

std::string Hdf5FilePerProcessStore::write_part(int iteration,
                                                const std::vector<BlockData>& blocks) {
  if (blocks.empty()) return {};
  for (const BlockData& block : blocks) check_block(block, options_.store_name);
  quiet_hdf5_errors();
  const std::string path =
      output_file_path(options_, env_.simulation, iteration, env_.writer, env_.node);
  ensure_output_directory(std::filesystem::path(path).parent_path().string(), options_.store_name,
                          options_.sync);
  Hdf5Handle file = create_serial_part(path);  // outside the try: an existing part is not ours
  try {
    write_file(file, path, iteration, blocks);
  } catch (...) {
    file.close();
    discard_part(path);
    throw;
  }
  return path;
}

void Hdf5FilePerProcessStore::write_file(Hdf5Handle& file, const std::string& path, int iteration,
                                         const std::vector<BlockData>& blocks) const {
  write_file_attributes(file.get(), env_.simulation, iteration, env_.writer, path);
  // Flushed first, so that the small file left if the reservation fails closes cleanly.
  hdf5_check(H5Fflush(file.get(), H5F_SCOPE_LOCAL), "flush the file", path);
  reserve_space(path, reservation_size(payload_bytes(blocks, options_.compression), blocks.size()),
                options_.store_name);
  for (const BlockData& block : blocks)
    write_block_dataset(file.get(), block, env_.domains, path, options_.compression);
  close_serial_part(file, path);
}

}  // namespace ecluse
