// HDF5 helpers shared by the HDF5 stores: handles, types, attributes, error messages, and the
// publish-by-rename protocol that keeps a failed write from ever showing under a final name.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

#include "config/StoreKinds.hpp"
#include "core/DataType.hpp"
#include "core/Paths.hpp"
#include "store/StoreBackend.hpp"

namespace ecluse {

/** Options of an HDF5 store once resolved: absolute directory, file-name pattern. */
struct Hdf5Options {
  std::string store_name;
  std::string directory;  // absolute, no trailing separator
  std::string file_name;  // pattern with {simulation} {iteration} {writer} {node}
  int permissions = -1;   // mode of the published files; -1: 0666 minus the umask
  bool sync = false;      // fsync each file before it is published (option Sync)
  CompressionSettings compression = {};
};

/** Owns one HDF5 identifier and closes it with the matching H5?close function. */
class Hdf5Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Hdf5Handle() = default;
  Hdf5Handle(hid_t id, Closer closer) noexcept : id_(id), closer_(closer) {}
  Hdf5Handle(Hdf5Handle&& other) noexcept;
  Hdf5Handle& operator=(Hdf5Handle&& other) noexcept;
  Hdf5Handle(const Hdf5Handle&) = delete;
  Hdf5Handle& operator=(const Hdf5Handle&) = delete;
  ~Hdf5Handle() { close(); }

  [[nodiscard]] hid_t get() const noexcept { return id_; }
  /** Closes now; the result matters for files, whose close flushes the data. */
  herr_t close() noexcept;

 private:
  hid_t id_ = -1;
  Closer closer_ = nullptr;
};

/** Stops HDF5 from printing its error stack: errors become ecluse::Error messages instead. */
void quiet_hdf5_errors();
/** The fix for a file at `path` that could not be created, flushed or closed, from the state of
 * its directory now: gone, not writable, on a full file system, or else what to check. */
std::string file_system_fix(const std::string& path);
/** Throws ECLUSE_IO_ERROR "HDF5 could not <action> in '<path>': <innermost HDF5 error>", and,
 * for an action on "the file", file_system_fix(path). */
[[noreturn]] void throw_hdf5_error(const std::string& action, const std::string& path);
/** Returns status when it is not negative, else throws like throw_hdf5_error. */
std::int64_t hdf5_check(std::int64_t status, const std::string& action, const std::string& path);
/** Wraps a freshly created identifier, throwing if its creation failed. */
Hdf5Handle hdf5_own(hid_t id, Hdf5Handle::Closer closer, const std::string& action,
                    const std::string& path);

/** The native HDF5 type of an element type (String is stored as bytes). */
hid_t native_type(DataType type);
/** A simple dataspace of these dimensions (scalar when there are none). */
Hdf5Handle make_dataspace(const std::vector<std::uint64_t>& dims, const std::string& path);
/** The block's full local extent with only its interior selected: ghosts are skipped by
 * HDF5 itself, without a copy. */
Hdf5Handle interior_memory_space(const BlockData& block, const std::string& path);
/** Link creation list that creates missing groups, for variable names such as "a/b/c". */
Hdf5Handle intermediate_group_lcpl(const std::string& path);
/** Number of elements of an extent (1 for a scalar). */
std::uint64_t element_count(const std::vector<std::uint64_t>& dims);
/** Throws ECLUSE_INVALID_BLOCK / ECLUSE_INVALID_DIMENSIONS for a block no store can write. */
void check_block(const BlockData& block, const std::string& store_name);
/** The block's position, zeros when none was set. */
std::vector<std::int64_t> block_position(const BlockData& block);
/** "(4, 2, 3)", for messages. */
template <class T>
std::string format_extent(const std::vector<T>& values) {
  std::string text = "(";
  for (std::size_t i = 0; i < values.size(); ++i) {
    text += (i == 0 ? "" : ", ") + std::to_string(values[i]);
  }
  return text + ")";
}

void write_int_attribute(hid_t object, const std::string& name, std::int64_t value,
                         const std::string& path);
void write_uint64_attribute(hid_t object, const std::string& name, std::uint64_t value,
                            const std::string& path);
void write_int_array_attribute(hid_t object, const std::string& name,
                               const std::vector<std::int64_t>& values, const std::string& path);
void write_string_attribute(hid_t object, const std::string& name, const std::string& value,
                            const std::string& path);
/** "simulation", "iteration", "ecluse_version", and "writer" when writer >= 0. */
void write_file_attributes(hid_t file, const std::string& simulation, int iteration, int writer,
                           const std::string& path);

/** Creates "<final>.part" with the serial driver, for one process to write. */
Hdf5Handle create_serial_part(const std::string& final_path);
/** Closes a file made by create_serial_part and cuts the unused reservation off its end. */
void close_serial_part(Hdf5Handle& file, const std::string& final_path);
/** Bytes of a block's interior. */
std::uint64_t interior_bytes(const BlockData& block);
/** Dataset path of a block in the per-core and per-node files: "<variable>/P<source>", plus
 * "/B<block>" when domains > 1. */
std::string block_dataset_path(const BlockData& block, int domains);
std::string block_dataset_path(const std::string& variable, int source, int block, int domains);
/** Creates the block's dataset at its interior extent, compressed as configured (one chunk
 * per block up to the chunk size), writes the interior (ghosts skipped) and the attributes
 * iteration, source, block, global_offset, units, and those of the compression. */
void write_block_dataset(hid_t file, const BlockData& block, int domains, const std::string& path,
                         const CompressionSettings& compression = {});

/** Throws ECLUSE_IO_ERROR when `path`'s directory, symbolic links resolved, is not FilesPath or
 * under it. */
void check_inside(const Hdf5Options& options, const std::string& path);
/** Full path of the file of one iteration: directory / expanded pattern (check_inside when the
 * pattern has directories). */
std::string output_file_path(const Hdf5Options& options, const std::string& simulation,
                             int iteration, int writer, int node);
/** Creates the directory and its parents; throws ECLUSE_IO_ERROR with a fix if impossible.
 * With `sync` (the store's Sync option) the parent of each directory made is flushed (fsync),
 * so that the files published in it are not lost with their directory's entry in a crash. */
void ensure_output_directory(const std::string& directory, const std::string& store_name,
                             bool sync = false);
/** Bytes to reserve for a file holding `payload` bytes of data in `datasets` datasets: the
 * data plus a margin for HDF5's metadata (64 KiB + 16 KiB per dataset). */
std::uint64_t reservation_size(std::uint64_t payload, std::size_t datasets);
/** Allocates the disk space of "<final>.part" up front (fallocate), so that a full disk or a
 * quota fails here, with a clear message, rather than inside HDF5: HDF5 1.10 cannot recover
 * from a failed write at close (the file stays half-closed and crashes the library at exit).
 * File systems without fallocate are written without reservation. Throws ECLUSE_IO_ERROR. */
void reserve_space(const std::string& final_path, std::uint64_t bytes,
                   const std::string& store_name);
/** Cuts "<final>.part" back to the size HDF5 used, when the reservation was larger. */
void trim_part(const std::string& final_path, std::uint64_t size);
/** Throws ECLUSE_IO_ERROR when "<final>.part" exists (another run writes the same file). */
void check_part_absent(const std::string& final_path);
/** The file is written under this name and renamed once complete. */
std::string part_path(const std::string& final_path);
/** Flushes "<final>.part" to its storage device (fsync; the store's Sync option) before it is
 * published; throws ECLUSE_IO_ERROR naming the file and the cause (the caller removes the part). */
void sync_part(const std::string& final_path, const std::string& store_name);
/** Renames "<final>.part" to "<final>" with the store's Permissions; throws ECLUSE_IO_ERROR
 * (and removes the .part). With Sync="yes" the part is flushed first (sync_part) and the
 * directory after the rename, so that the new name survives a crash; a failure of the latter
 * throws ECLUSE_IO_ERROR and leaves the file published. */
void publish_part(const std::string& final_path, const Hdf5Options& options);
/** Removes "<final>.part" if present; never throws, used on failure paths. */
void discard_part(const std::string& final_path) noexcept;

}  // namespace ecluse
