// Helpers shared by the tests: source paths, per-test directories, reading HDF5 back.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ecluse::test {

/** Path of a file under the source tree (ECLUSE_TEST_SOURCE_DIR, set by the CMake helper). */
std::string source_path(const std::string& relative);
/** A fresh directory for this test, made by rank 0 of comm and known to every rank. */
std::string fresh_dir(const std::string& name, MPI_Comm comm = MPI_COMM_WORLD);
std::string read_text(const std::string& path);

/** A dataset read back as raw bytes, with its shape and HDF5 class/size. */
struct Dataset {
  std::vector<std::uint64_t> dims;
  std::vector<unsigned char> bytes;
  std::size_t element_size = 0;
  bool is_float = false;
};
/** Reads a dataset with the serial HDF5 driver; throws std::runtime_error if absent. */
Dataset read_dataset(const std::string& file, const std::string& path);
bool dataset_exists(const std::string& file, const std::string& path);
/** Reads an integer (scalar or 1-D) attribute of an object. */
std::vector<std::int64_t> read_int_attribute(const std::string& file, const std::string& object,
                                             const std::string& name);
std::string read_string_attribute(const std::string& file, const std::string& object,
                                  const std::string& name);

template <class T>
std::vector<unsigned char> as_bytes(const std::vector<T>& values) {
  const auto* p = reinterpret_cast<const unsigned char*>(values.data());
  return {p, p + values.size() * sizeof(T)};
}

}  // namespace ecluse::test
