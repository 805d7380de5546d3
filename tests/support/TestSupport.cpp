// Helpers shared by the tests.
#include "TestSupport.hpp"

#include <hdf5.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ecluse::test {
namespace {

struct Handle {
  hid_t id;
  herr_t (*close)(hid_t);
  ~Handle() {
    if (id >= 0) close(id);
  }
};

hid_t check(hid_t id, const std::string& what) {
  if (id < 0) throw std::runtime_error("HDF5 failed: " + what);
  return id;
}

Handle open_file(const std::string& file) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  return {check(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "open " + file), H5Fclose};
}

}  // namespace

std::string source_path(const std::string& relative) {
  const char* root = std::getenv("ECLUSE_TEST_SOURCE_DIR");
  return std::string(root ? root : ".") + "/" + relative;
}

std::string fresh_dir(const std::string& name, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const std::string dir = (std::filesystem::current_path() / name).string();
  if (rank == 0) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  MPI_Barrier(comm);
  return dir;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Dataset read_dataset(const std::string& file, const std::string& path) {
  Handle f = open_file(file);
  Handle d{check(H5Dopen2(f.id, path.c_str(), H5P_DEFAULT), file + ":" + path), H5Dclose};
  Handle space{H5Dget_space(d.id), H5Sclose};
  Handle type{H5Dget_type(d.id), H5Tclose};
  Dataset out;
  const int rank = H5Sget_simple_extent_ndims(space.id);
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space.id, dims.data(), nullptr);
  std::size_t count = 1;
  for (hsize_t n : dims) {
    out.dims.push_back(n);
    count *= n;
  }
  out.element_size = H5Tget_size(type.id);
  out.is_float = H5Tget_class(type.id) == H5T_FLOAT;
  out.bytes.resize(count * out.element_size);
  Handle native{H5Tget_native_type(type.id, H5T_DIR_ASCEND), H5Tclose};
  check(H5Dread(d.id, native.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.bytes.data()), "read " + path);
  return out;
}

bool dataset_exists(const std::string& file, const std::string& path) {
  Handle f = open_file(file);
  std::string prefix;
  std::stringstream parts(path);
  for (std::string part; std::getline(parts, part, '/');) {
    if (part.empty()) continue;
    prefix += "/" + part;
    if (H5Lexists(f.id, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
  }
  return true;
}

std::vector<std::int64_t> read_int_attribute(const std::string& file, const std::string& object,
                                             const std::string& name) {
  Handle f = open_file(file);
  Handle a{check(H5Aopen_by_name(f.id, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT),
                 object + "@" + name),
           H5Aclose};
  Handle space{H5Aget_space(a.id), H5Sclose};
  const auto n = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.id));
  std::vector<std::int64_t> values(n);
  check(H5Aread(a.id, H5T_NATIVE_INT64, values.data()), "read attribute " + name);
  return values;
}

std::string read_string_attribute(const std::string& file, const std::string& object,
                                  const std::string& name) {
  Handle f = open_file(file);
  Handle a{check(H5Aopen_by_name(f.id, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT),
                 object + "@" + name),
           H5Aclose};
  Handle type{H5Aget_type(a.id), H5Tclose};
  std::string value(H5Tget_size(type.id), '\0');
  check(H5Aread(a.id, type.id, value.data()), "read attribute " + name);
  return value.substr(0, value.find('\0'));
}

}  // namespace ecluse::test
