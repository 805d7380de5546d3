// HDF5 helpers shared by the HDF5 stores.
#include "store/Hdf5Support.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

#include "ecluse/Error.hpp"
#include "store/Compression.hpp"

#ifndef ECLUSE_VERSION_STRING
#define ECLUSE_VERSION_STRING "unknown"
#endif

namespace ecluse {
namespace {

// Walking upward visits the innermost error first: the one that says what really went wrong
// (errno text, file name), where the outer ones only repeat "unable to create file".
herr_t keep_innermost(unsigned n, const H5E_error2_t* error, void* data) {
  if (n == 0 && error->desc != nullptr) *static_cast<std::string*>(data) = error->desc;
  return 0;
}

std::string innermost_hdf5_error() {
  std::string description;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_innermost, &description);
  H5Eclear2(H5E_DEFAULT);
  return description.empty() ? "no detail on the HDF5 error stack" : description;
}

std::vector<hsize_t> to_hsize(const std::vector<std::uint64_t>& values) {
  return {values.begin(), values.end()};
}

std::vector<hsize_t> ghost_offset(const BlockData& block) {
  if (block.ghost_lo.empty()) return std::vector<hsize_t>(block.dims.size(), 0);
  return to_hsize(block.ghost_lo);
}

Hdf5Handle string_type(std::size_t length, const std::string& path) {
  Hdf5Handle type = hdf5_own(H5Tcopy(H5T_C_S1), H5Tclose, "copy the string type", path);
  hdf5_check(H5Tset_size(type.get(), length + 1), "size a string type", path);
  hdf5_check(H5Tset_strpad(type.get(), H5T_STR_NULLTERM), "pad a string type", path);
  hdf5_check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "set a string character set", path);
  return type;
}

void write_attribute(hid_t object, const std::string& name, hid_t type, hid_t space,
                     const void* data, const std::string& path) {
  const std::string what = "attribute '" + name + "'";
  Hdf5Handle attribute =
      hdf5_own(H5Acreate2(object, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
               "create " + what, path);
  hdf5_check(H5Awrite(attribute.get(), type, data), "write " + what, path);
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

void write_block_attributes(hid_t dataset, const BlockData& block, const std::string& path) {
  write_int_attribute(dataset, "iteration", block.iteration, path);
  write_int_attribute(dataset, "source", block.source, path);
  write_int_attribute(dataset, "block", block.block, path);
  write_int_array_attribute(dataset, "global_offset", block_position(block), path);
  write_string_attribute(dataset, "units", block.variable->unit, path);
}

// SEMI: closing the file fails while an object is still open instead of silently delaying the
// flush, so a successful close really means the data reached the file before the rename.
Hdf5Handle serial_file_access_list(const std::string& path) {
  Hdf5Handle fapl = hdf5_own(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "create a property list", path);
  hdf5_check(H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_SEMI), "set the close degree", path);
  return fapl;
}

bool is_directory(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

// mkdir one level: 0 when made, EEXIST when already a directory (another writer may have just
// made it), else the errno to report; a file in the way is ENOTDIR, which the user has to fix.
int make_one_directory(const std::string& path) {
  if (::mkdir(path.c_str(), 0777) == 0) return 0;
  if (errno != EEXIST) return errno;
  return is_directory(path) ? EEXIST : ENOTDIR;
}

// fsync of an open descriptor, closed in any case: 0 or the errno of the first failure.
int sync_and_close(int fd) {
  if (fd < 0) return errno;
  const int error = ::fsync(fd) == 0 ? 0 : errno;
  ::close(fd);
  return error;
}

int sync_directory(const std::string& directory) {
  return sync_and_close(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
}

// A directory just made survives a crash of the node once its parent's entry is on disk.
void sync_parent_of_made(const std::filesystem::path& made, const std::string& store) {
  const std::string parent = made.parent_path().string();
  const int error = sync_directory(parent);
  if (error == 0) return;
  throw Error(ECLUSE_IO_ERROR, "output directory '" + made.string() + "' of store '" + store +
                                   "' was made, but its parent '" + parent +
                                   "' could not be flushed (fsync): " + std::strerror(error) +
                                   ". Fix: check the file system (dmesg), or set the store's "
                                   "option Sync to no");
}

[[noreturn]] void throw_directory_error(const std::string& directory, const std::string& store,
                                        int error) {
  throw Error(ECLUSE_IO_ERROR,
              "cannot create output directory '" + directory + "' for store '" + store +
                  "': " + std::strerror(error) +
                  ". Fix: make every component of this path a directory you may write to, or "
                  "change the FilesPath option of the store");
}

}  // namespace

Hdf5Handle::Hdf5Handle(Hdf5Handle&& other) noexcept
    : id_(std::exchange(other.id_, -1)), closer_(other.closer_) {}

Hdf5Handle& Hdf5Handle::operator=(Hdf5Handle&& other) noexcept {
  if (this != &other) {
    close();
    id_ = std::exchange(other.id_, -1);
    closer_ = other.closer_;
  }
  return *this;
}

herr_t Hdf5Handle::close() noexcept {
  if (id_ < 0 || closer_ == nullptr) return 0;
  return closer_(std::exchange(id_, -1));
}

void quiet_hdf5_errors() {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

std::string file_system_fix(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  const std::string directory = parent.empty() ? "." : parent.string();
  struct stat info {};
  if (::stat(directory.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    return "Fix: its directory '" + directory +
           "' is gone (removed or unmounted while the run wrote): make it again for the next "
           "iterations, or change the store's FilesPath";
  }
  if (::access(directory.c_str(), W_OK | X_OK) != 0) {
    return "Fix: this process may not write in '" + directory +
           "': change its permissions, or the store's FilesPath";
  }
  struct statvfs file_system {};
  if (::statvfs(directory.c_str(), &file_system) == 0 && file_system.f_bavail == 0) {
    return "Fix: the file system of '" + directory +
           "' is full: free space on it, or change the store's FilesPath";
  }
  return "Fix: check that '" + directory +
         "' is on a mounted, writable file system with free space (df, dmesg)";
}

void throw_hdf5_error(const std::string& action, const std::string& path) {
  const bool on_the_file = action.ends_with("the file");
  std::string message = "HDF5 could not " + action + " in '" + path +
                        "': " + innermost_hdf5_error();  // before anything else calls HDF5
  if (on_the_file) message += ". " + file_system_fix(path);
  throw Error(ECLUSE_IO_ERROR, message);
}

std::int64_t hdf5_check(std::int64_t status, const std::string& action, const std::string& path) {
  if (status < 0) throw_hdf5_error(action, path);
  return status;
}

Hdf5Handle hdf5_own(hid_t id, Hdf5Handle::Closer closer, const std::string& action,
                    const std::string& path) {
  hdf5_check(id, action, path);
  return {id, closer};
}

hid_t native_type(DataType type) {
  switch (type) {
    case DataType::Int8:
      return H5T_NATIVE_INT8;
    case DataType::Int16:
      return H5T_NATIVE_INT16;
    case DataType::Int32:
      return H5T_NATIVE_INT32;
    case DataType::Int64:
      return H5T_NATIVE_INT64;
    case DataType::Float32:
      return H5T_NATIVE_FLOAT;
    case DataType::Float64:
      return H5T_NATIVE_DOUBLE;
    case DataType::String:
      return H5T_NATIVE_CHAR;
    case DataType::UInt8:
      return H5T_NATIVE_UINT8;
    case DataType::UInt16:
      return H5T_NATIVE_UINT16;
    case DataType::UInt32:
      return H5T_NATIVE_UINT32;
    case DataType::UInt64:
      return H5T_NATIVE_UINT64;
  }
  return H5T_NATIVE_CHAR;
}

Hdf5Handle make_dataspace(const std::vector<std::uint64_t>& dims, const std::string& path) {
  if (dims.empty()) return hdf5_own(H5Screate(H5S_SCALAR), H5Sclose, "create a dataspace", path);
  const std::vector<hsize_t> extent = to_hsize(dims);
  return hdf5_own(H5Screate_simple(static_cast<int>(extent.size()), extent.data(), nullptr),
                  H5Sclose, "create a dataspace", path);
}

Hdf5Handle interior_memory_space(const BlockData& block, const std::string& path) {
  Hdf5Handle space = make_dataspace(block.dims, path);
  const std::vector<hsize_t> count = to_hsize(block.interior());
  if (count.empty()) return space;
  if (element_count(block.interior()) == 0) {
    hdf5_check(H5Sselect_none(space.get()), "select nothing", path);
    return space;
  }
  const std::vector<hsize_t> start = ghost_offset(block);
  hdf5_check(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                                 nullptr),
             "select the interior of a block", path);
  return space;
}

Hdf5Handle intermediate_group_lcpl(const std::string& path) {
  Hdf5Handle lcpl = hdf5_own(H5Pcreate(H5P_LINK_CREATE), H5Pclose, "create a property list", path);
  hdf5_check(H5Pset_create_intermediate_group(lcpl.get(), 1), "enable intermediate groups", path);
  return lcpl;
}

std::uint64_t element_count(const std::vector<std::uint64_t>& dims) {
  std::uint64_t count = 1;
  for (std::uint64_t n : dims) count *= n;
  return count;
}

void check_block(const BlockData& block, const std::string& store_name) {
  const std::string what = "store '" + store_name + "': block " + std::to_string(block.block) +
                           " from source " + std::to_string(block.source);
  if (block.variable == nullptr) throw Error(ECLUSE_INVALID_BLOCK, what + " names no variable");
  const std::string of = what + " of variable '" + block.variable->name + "'";
  if (!block.position.empty() && block.position.size() != block.dims.size()) {
    throw Error(ECLUSE_INVALID_DIMENSIONS,
                of + " has a position of " + std::to_string(block.position.size()) +
                    " dimensions for an extent of " + std::to_string(block.dims.size()));
  }
  if (block.data == nullptr && element_count(block.interior()) > 0) {
    throw Error(ECLUSE_INVALID_BLOCK, of + " has no data");
  }
}

std::vector<std::int64_t> block_position(const BlockData& block) {
  if (block.position.empty()) return std::vector<std::int64_t>(block.dims.size(), 0);
  return block.position;
}

void write_int_attribute(hid_t object, const std::string& name, std::int64_t value,
                         const std::string& path) {
  Hdf5Handle space = hdf5_own(H5Screate(H5S_SCALAR), H5Sclose, "create a dataspace", path);
  write_attribute(object, name, H5T_NATIVE_INT64, space.get(), &value, path);
}

void write_uint64_attribute(hid_t object, const std::string& name, std::uint64_t value,
                            const std::string& path) {
  Hdf5Handle space = hdf5_own(H5Screate(H5S_SCALAR), H5Sclose, "create a dataspace", path);
  write_attribute(object, name, H5T_NATIVE_UINT64, space.get(), &value, path);
}

void write_int_array_attribute(hid_t object, const std::string& name,
                               const std::vector<std::int64_t>& values, const std::string& path) {
  Hdf5Handle space = make_dataspace({values.size()}, path);
  write_attribute(object, name, H5T_NATIVE_INT64, space.get(), values.data(), path);
}

void write_string_attribute(hid_t object, const std::string& name, const std::string& value,
                            const std::string& path) {
  Hdf5Handle space = hdf5_own(H5Screate(H5S_SCALAR), H5Sclose, "create a dataspace", path);
  Hdf5Handle type = string_type(value.size(), path);
  write_attribute(object, name, type.get(), space.get(), value.c_str(), path);
}

void write_file_attributes(hid_t file, const std::string& simulation, int iteration, int writer,
                           const std::string& path) {
  write_string_attribute(file, "simulation", simulation, path);
  write_int_attribute(file, "iteration", iteration, path);
  if (writer >= 0) write_int_attribute(file, "writer", writer, path);
  write_string_attribute(file, "ecluse_version", ECLUSE_VERSION_STRING, path);
}

Hdf5Handle create_serial_part(const std::string& final_path) {
  Hdf5Handle fapl = serial_file_access_list(final_path);
  check_part_absent(final_path);
  // Made here with O_EXCL (no link, no file of another writer), so that a part HDF5 fails to
  // write (a full disk at its first bytes) is this create's own and is not left behind.
  const std::string part = part_path(final_path);
  const int fd = ::open(part.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0 && errno == EEXIST) check_part_absent(final_path);
  if (fd < 0) {
    const int error = errno;
    throw Error(ECLUSE_IO_ERROR, "cannot create '" + part + "': " + std::strerror(error) + ". " +
                                     file_system_fix(part));
  }
  ::close(fd);
  const hid_t file = H5Fcreate(part.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get());
  if (file < 0) {
    std::error_code ignored;
    std::filesystem::remove(part, ignored);
  }
  return hdf5_own(file, H5Fclose, "create the file", final_path);
}

// The part is created with O_EXCL, which also refuses a symbolic link: this check only gives the
// reason in words.
void check_part_absent(const std::string& final_path) {
  const std::string part = part_path(final_path);
  struct stat info {};
  if (::lstat(part.c_str(), &info) != 0) return;
  throw Error(ECLUSE_IO_ERROR, "'" + part +
                                   "' already exists: another run is writing the same file, or "
                                   "it is not a file of this run. Fix: give each run its own "
                                   "FilesPath or simulation name, or remove it");
}

// The serial driver keeps the file at its reserved size: cut the unused margin.
void close_serial_part(Hdf5Handle& file, const std::string& final_path) {
  hsize_t size = 0;
  hdf5_check(H5Fget_filesize(file.get(), &size), "get the file size", final_path);
  hdf5_check(file.close(), "close the file", final_path);
  trim_part(final_path, size);
}

std::uint64_t interior_bytes(const BlockData& block) {
  return element_count(block.interior()) * data_type_size(block.type);
}

std::string block_dataset_path(const std::string& variable, int source, int block, int domains) {
  std::string name = variable + "/P" + std::to_string(source);
  if (domains != 1) name += "/B" + std::to_string(block);
  return name;
}

std::string block_dataset_path(const BlockData& block, int domains) {
  return block_dataset_path(block.variable->name, block.source, block.block, domains);
}

namespace {

// A converted block is written from its contiguous encoded interior, the others from the
// block itself with the ghosts left out by the memory selection.
void write_block_values(hid_t dataset, const BlockData& block, Hdf5Compression applied,
                        const ScaledRange& range, const std::string& name,
                        const std::string& path) {
  if (element_count(block.interior()) == 0) return;
  if (!converts(applied)) {
    Hdf5Handle memory_space = interior_memory_space(block, path);
    hdf5_check(H5Dwrite(dataset, native_type(block.type), memory_space.get(), H5S_ALL, H5P_DEFAULT,
                        block.data),
               "write dataset '" + name + "'", path);
    return;
  }
  const std::vector<std::uint16_t> codes = encode_interior(block, applied, range);
  Hdf5Handle type = stored_type(applied, block.type, path);
  hdf5_check(H5Dwrite(dataset, type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, codes.data()),
             "write dataset '" + name + "'", path);
}

}  // namespace

void write_block_dataset(hid_t file, const BlockData& block, int domains, const std::string& path,
                         const CompressionSettings& compression) {
  const std::string name = block_dataset_path(block, domains);
  const std::vector<std::uint64_t> interior = block.interior();
  const std::vector<std::uint64_t> chunk =
      chunk_extent(interior, interior, data_type_size(block.type), compression.chunk_bytes);
  Hdf5Compression applied = applied_method(compression, block.type, chunk);
  const bool scans = applied == Hdf5Compression::Scaled16 || applied == Hdf5Compression::Zfp;
  const FiniteRange values = scans ? interior_range(block) : FiniteRange{};
  applied = applied_to_values(applied, values);
  const ScaledRange range =
      applied == Hdf5Compression::Scaled16 ? scaled_range(values) : ScaledRange{};
  Hdf5Handle type = stored_type(applied, block.type, path);
  Hdf5Handle file_space = make_dataspace(interior, path);
  Hdf5Handle lcpl = intermediate_group_lcpl(path);
  Hdf5Handle dcpl =
      hdf5_own(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "create a property list", path);
  add_compression(dcpl.get(), compression, applied, block.type, chunk, path);
  Hdf5Handle dataset = hdf5_own(H5Dcreate2(file, name.c_str(), type.get(), file_space.get(),
                                           lcpl.get(), dcpl.get(), H5P_DEFAULT),
                                H5Dclose, "create dataset '" + name + "'", path);
  write_block_values(dataset.get(), block, applied, range, name, path);
  write_block_attributes(dataset.get(), block, path);
  if (compression.method != Hdf5Compression::None) {
    write_compression_attributes(dataset.get(), applied, block.type, range, path);
  }
  // HDF5 writes cached chunks (compressed ones included) and small sieved writes at close, and
  // closes the dataset even when that write fails: the failure is only in the result.
  hdf5_check(dataset.close(), "close dataset '" + name + "' (writing its last data)", path);
}

std::string output_file_path(const Hdf5Options& options, const std::string& simulation,
                             int iteration, int writer, int node) {
  std::string name = replace_all(options.file_name, "{simulation}", simulation);
  name = replace_all(name, "{iteration}", std::to_string(iteration));
  name = replace_all(name, "{writer}", std::to_string(writer));
  name = replace_all(name, "{node}", std::to_string(node));
  const std::string path = options.directory + "/" + name;
  if (name.find('/') != std::string::npos) check_inside(options, path);
  return path;
}

// FileName has no '..' (refused at initialize), but one of its directories may be a symbolic link
// that leads out of FilesPath (and of ECLUSE_OUTPUT_ROOT): judged by where the file's directory
// resolves to, before anything is made there.
void check_inside(const Hdf5Options& options, const std::string& path) {
  const std::string parent = resolved_path(std::filesystem::path(path).parent_path().string());
  if (is_under(parent, resolved_path(options.directory))) return;
  throw Error(ECLUSE_IO_ERROR,
              "store '" + options.store_name + "' would write '" + path +
                  "' outside its FilesPath '" + options.directory +
                  "': its directory resolves to '" + parent +
                  "' (a symbolic link on the way leads out). Fix: remove the link, or write a "
                  "FileName without it");
}

void ensure_output_directory(const std::string& directory, const std::string& store_name,
                             bool sync) {
  if (is_directory(directory)) return;
  std::filesystem::path prefix;
  for (const auto& part : std::filesystem::path(directory)) {
    prefix /= part;
    if (part == prefix.root_path() || part.empty()) continue;
    const int error = make_one_directory(prefix.string());
    if (error == EEXIST) continue;
    if (error != 0) throw_directory_error(directory, store_name, error);
    if (sync) sync_parent_of_made(prefix, store_name);
  }
}

std::uint64_t reservation_size(std::uint64_t payload, std::size_t datasets) {
  return payload + (64u << 10) + (16u << 10) * static_cast<std::uint64_t>(datasets);
}

void reserve_space(const std::string& final_path, std::uint64_t bytes,
                   const std::string& store_name) {
  const int fd = ::open(part_path(final_path).c_str(), O_WRONLY | O_CLOEXEC);
  int error = fd < 0 ? errno : 0;
  if (fd >= 0 && ::fallocate(fd, 0, 0, static_cast<off_t>(bytes)) != 0) error = errno;
  if (fd >= 0) ::close(fd);
  if (error == 0 || error == EOPNOTSUPP || error == ENOSYS) return;
  throw Error(ECLUSE_IO_ERROR, "cannot reserve " + std::to_string(bytes) + " bytes for '" +
                                   final_path + "': " + std::strerror(error) +
                                   ". Fix: free space on that file system or change the "
                                   "FilesPath option of store '" +
                                   store_name + "'");
}

void trim_part(const std::string& final_path, std::uint64_t size) {
  const std::string part = part_path(final_path);
  if (::truncate(part.c_str(), static_cast<off_t>(size)) == 0) return;
  throw Error(ECLUSE_IO_ERROR, "cannot truncate '" + part + "' to " + std::to_string(size) +
                                   " bytes: " + std::strerror(errno));
}

std::string part_path(const std::string& final_path) {
  return final_path + ".part";
}

namespace {

void sync_directory_of(const std::string& final_path) {
  const std::string directory = std::filesystem::path(final_path).parent_path().string();
  const int error = sync_directory(directory);
  if (error == 0) return;
  throw Error(ECLUSE_IO_ERROR, "'" + final_path + "' was written and renamed, but its directory '" +
                                   directory +
                                   "' could not be flushed (fsync): " + std::strerror(error) +
                                   "; the file may be missing after a crash of the node. Fix: "
                                   "check the file system (dmesg), or set the store's option "
                                   "Sync to no");
}

}  // namespace

void sync_part(const std::string& final_path, const std::string& store_name) {
  const std::string part = part_path(final_path);
  const int error = sync_and_close(::open(part.c_str(), O_WRONLY | O_CLOEXEC));
  if (error == 0) return;
  throw Error(ECLUSE_IO_ERROR, "cannot flush '" + part +
                                   "' to its storage device (fsync): " + std::strerror(error) +
                                   "; the iteration is not stored. Fix: check the file system "
                                   "and its free space (dmesg), or set the option Sync of store '" +
                                   store_name + "' to no");
}

void publish_part(const std::string& final_path, const Hdf5Options& options) {
  const std::string part = part_path(final_path);
  try {
    if (options.sync) sync_part(final_path, options.store_name);
    if (options.permissions >= 0 &&
        ::chmod(part.c_str(), static_cast<mode_t>(options.permissions)) != 0) {
      throw Error(ECLUSE_IO_ERROR,
                  "cannot set the permissions of '" + part + "': " + std::strerror(errno));
    }
    if (std::rename(part.c_str(), final_path.c_str()) != 0) {
      throw Error(ECLUSE_IO_ERROR, "cannot rename '" + part + "' to '" + final_path +
                                       "': " + std::strerror(errno) +
                                       ". Fix: let nothing else (another run, a directory) take "
                                       "that name, and keep FilesPath in place and writable "
                                       "while the run writes there");
    }
  } catch (...) {
    discard_part(final_path);
    throw;
  }
  if (options.sync) sync_directory_of(final_path);
}

void discard_part(const std::string& final_path) noexcept {
  std::remove(part_path(final_path).c_str());
}

}  // namespace ecluse
