// Helpers of the store tests: store configurations, blocks built by hand, the expected values.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "TestSupport.hpp"
#include "core/Collective.hpp"
#include "ecluse/Error.hpp"
#include "store/StoreRegistry.hpp"

namespace ecluse::test {

inline int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

inline int world_size() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

inline Store hdf5_store(const std::string& dir, const std::string& mode,
                        std::map<std::string, std::string> extra = {}) {
  Store store;
  store.name = "h5";
  store.type = "HDF5";
  store.options = std::move(extra);
  store.options["FilesPath"] = dir;
  store.options["FileMode"] = mode;
  return store;
}

inline StoreEnv world_env(int domains = 1) {
  return {MPI_COMM_WORLD, world_rank(), MPI_COMM_SELF, 0, domains, "sim"};
}

inline Variable variable(const std::string& name, const std::string& unit = "") {
  Variable v;
  v.name = name;
  v.unit = unit;
  return v;
}

/** A block's shape and place; data is attached by block_of. */
struct Shape {
  std::vector<std::uint64_t> dims;
  std::vector<std::uint64_t> ghost_lo = {};
  std::vector<std::uint64_t> ghost_hi = {};
  std::vector<std::int64_t> position = {};
  std::vector<std::uint64_t> global = {};
};

template <class T>
constexpr DataType type_of() {
  if constexpr (std::is_same_v<T, std::int8_t>) return DataType::Int8;
  if constexpr (std::is_same_v<T, std::int32_t>) return DataType::Int32;
  if constexpr (std::is_same_v<T, std::int64_t>) return DataType::Int64;
  if constexpr (std::is_same_v<T, std::uint8_t>) return DataType::UInt8;
  if constexpr (std::is_same_v<T, std::uint16_t>) return DataType::UInt16;
  if constexpr (std::is_same_v<T, std::uint32_t>) return DataType::UInt32;
  if constexpr (std::is_same_v<T, std::uint64_t>) return DataType::UInt64;
  if constexpr (std::is_same_v<T, float>) return DataType::Float32;
  return DataType::Float64;
}

template <class T>
BlockData block_of(const Variable& v, const std::vector<T>& data, const Shape& shape,
                   int source = 0, int block = 0, int iteration = 0) {
  BlockData b;
  b.variable = &v;
  b.type = type_of<T>();
  b.iteration = iteration;
  b.source = source;
  b.block = block;
  b.dims = shape.dims;
  b.ghost_lo = shape.ghost_lo;
  b.ghost_hi = shape.ghost_hi;
  b.global = shape.global;
  b.position = shape.position;
  b.data = data.data();
  return b;
}

inline std::uint64_t element_count_of(const std::vector<std::uint64_t>& extent) {
  std::uint64_t count = 1;
  for (std::uint64_t n : extent) count *= n;
  return count;
}

inline std::vector<std::uint64_t> interior_of(const Shape& shape) {
  BlockData probe;
  probe.dims = shape.dims;
  probe.ghost_lo = shape.ghost_lo;
  probe.ghost_hi = shape.ghost_hi;
  return probe.interior();
}

/** Row-major (C order) index of a multi-index in an extent. */
inline std::uint64_t flat_index(const std::vector<std::uint64_t>& index,
                                const std::vector<std::uint64_t>& extent) {
  std::uint64_t flat = 0;
  for (std::size_t d = 0; d < extent.size(); ++d) flat = flat * extent[d] + index[d];
  return flat;
}

/** Calls f(index) for every multi-index of an extent, in C order. */
template <class F>
void for_each_index(const std::vector<std::uint64_t>& extent, F&& f) {
  std::vector<std::uint64_t> index(extent.size(), 0);
  for (std::uint64_t i = 0; i < element_count_of(extent); ++i) {
    std::uint64_t rest = i;
    for (std::size_t d = extent.size(); d-- > 0;) {
      index[d] = rest % extent[d];
      rest /= extent[d];
    }
    f(index);
  }
}

/** Fills the full local extent: ghost cells get `ghost_value`, interior cells value(index
 * relative to the interior). */
template <class T, class F>
std::vector<T> fill_block(const Shape& shape, T ghost_value, F&& value) {
  std::vector<T> data;
  for_each_index(shape.dims, [&](const std::vector<std::uint64_t>& index) {
    std::vector<std::uint64_t> inner(index.size());
    bool ghost = false;
    for (std::size_t d = 0; d < index.size(); ++d) {
      const std::uint64_t lo = shape.ghost_lo.empty() ? 0 : shape.ghost_lo[d];
      const std::uint64_t hi = shape.ghost_hi.empty() ? 0 : shape.ghost_hi[d];
      ghost = ghost || index[d] < lo || index[d] >= shape.dims[d] - hi;
      inner[d] = index[d] - lo;
    }
    data.push_back(ghost ? ghost_value : value(inner));
  });
  return data;
}

/** Every file (recursively) under dir whose name ends with suffix. */
inline std::vector<std::string> files_ending_with(const std::string& dir,
                                                  const std::string& suffix) {
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    const std::string name = entry.path().string();
    if (name.ends_with(".ecluse-lock")) continue;  // the run's lock, not an output
    if (name.size() >= suffix.size() && name.ends_with(suffix)) found.push_back(name);
  }
  return found;
}

/** make_store on every writer of env.comm together, as the Writer does at initialize: the
 * first writer's output lock and clean-up are done before any writer writes. */
inline std::unique_ptr<StoreBackend> make_store_collectively(const Store& config,
                                                             const StoreEnv& env) {
  std::unique_ptr<StoreBackend> store;
  run_collectively(env.comm, [&] { store = make_store(config, env); });
  return store;
}

/** No output file under dir: only the run's lock (".<simulation>.ecluse-lock") may be there. */
inline bool no_output(const std::string& dir) {
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.path().filename().string().ends_with(".ecluse-lock")) return false;
  }
  return true;
}

/** Lowers the file-size limit of this process for its lifetime, as a full disk would. */
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    rlimit lowered = saved_;
    lowered.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &lowered);
    previous_ = std::signal(SIGXFSZ, SIG_IGN);  // EFBIG instead of death
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, previous_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit saved_{};
  void (*previous_)(int) = SIG_DFL;
};

/** Runs f and returns the ecluse::Error it throws (fails the test if it throws none). */
template <class F>
Error error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected an ecluse::Error";
  return Error(ECLUSE_OK, "");
}

}  // namespace ecluse::test
