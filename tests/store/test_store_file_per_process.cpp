// HDF5 store, FilePerCore mode: every writer's file is read back by rank 0 and compared bit
// for bit with the interior of the blocks it was given.
#include <gtest/gtest.h>

#include <filesystem>

#include "StoreTestHelpers.hpp"

namespace ecluse::test {
namespace {

std::string file_of(const std::string& dir, int iteration, int writer) {
  return dir + "/sim_It" + std::to_string(iteration) + "_Pr" + std::to_string(writer) + ".h5";
}

/** One variable of the type test: its shape and the value of interior element i on writer w. */
template <class T>
struct Case {
  Variable var;
  Shape shape;
  T (*value)(int writer, std::uint64_t i);
};

template <class T>
std::vector<T> local_data(const Case<T>& c, int writer) {
  const auto interior = interior_of(c.shape);
  return fill_block(c.shape, T(-1), [&](const std::vector<std::uint64_t>& index) {
    return c.value(writer, flat_index(index, interior));
  });
}

template <class T>
void expect_dataset(const std::string& file, const Case<T>& c, int writer) {
  const auto interior = interior_of(c.shape);
  std::vector<T> expected;
  for (std::uint64_t i = 0; i < element_count_of(interior); ++i) {
    expected.push_back(c.value(writer, i));
  }
  const Dataset d = read_dataset(file, c.var.name + "/P" + std::to_string(writer));
  EXPECT_EQ(d.dims, interior) << c.var.name;
  EXPECT_EQ(d.element_size, sizeof(T)) << c.var.name;
  EXPECT_EQ(d.is_float, std::is_floating_point_v<T>) << c.var.name;
  EXPECT_EQ(d.bytes, as_bytes(expected)) << c.var.name << " of writer " << writer;
}

const Case<std::int32_t> kInt32{
    variable("i32"), {{10}}, [](int w, std::uint64_t i) { return w * 1000 + int(i); }};
const Case<float> kFloat{variable("f32"), {{6, 5}, {1, 2}, {1, 0}}, [](int w, std::uint64_t i) {
                           return float(w) + float(i) * 0.25f;
                         }};
const Case<double> kDouble{variable("f64"),
                           {{4, 5, 6}, {1, 1, 1}, {1, 1, 1}},
                           [](int w, std::uint64_t i) { return w * 1e6 + double(i) + 1.0 / 3; }};
const Case<std::int8_t> kInt8{variable("i8"), {{7}, {2}, {1}}, [](int w, std::uint64_t i) {
                                return std::int8_t(w * 10 - int(i) - 100);
                              }};
const Case<std::int64_t> kInt64{variable("i64"), {{3, 2}}, [](int w, std::uint64_t i) {
                                  return (std::int64_t(1) << 40) + w * 100 + std::int64_t(i);
                                }};

TEST(StoreFilePerCore, WritesEveryTypeAndShapeWithoutGhosts) {
  const std::string dir = fresh_dir("fpp_types");
  auto store = make_store_collectively(hdf5_store(dir, "FilePerCore"), world_env());
  const int w = world_rank();
  const auto i32 = local_data(kInt32, w);
  const auto f32 = local_data(kFloat, w);
  const auto f64 = local_data(kDouble, w);
  const auto i8 = local_data(kInt8, w);
  const auto i64 = local_data(kInt64, w);
  store->write_iteration(
      3, {block_of(kInt32.var, i32, kInt32.shape, w), block_of(kFloat.var, f32, kFloat.shape, w),
          block_of(kDouble.var, f64, kDouble.shape, w), block_of(kInt8.var, i8, kInt8.shape, w),
          block_of(kInt64.var, i64, kInt64.shape, w)});
  MPI_Barrier(MPI_COMM_WORLD);
  if (w != 0) return;
  for (int writer = 0; writer < world_size(); ++writer) {
    const std::string file = file_of(dir, 3, writer);
    expect_dataset(file, kInt32, writer);
    expect_dataset(file, kFloat, writer);
    expect_dataset(file, kDouble, writer);
    expect_dataset(file, kInt8, writer);
    expect_dataset(file, kInt64, writer);
  }
  EXPECT_TRUE(files_ending_with(dir, ".part").empty());
}

TEST(StoreFilePerCore, GhostsAreStrippedExactly) {
  const std::string dir = fresh_dir("fpp_ghosts");
  auto store = make_store_collectively(hdf5_store(dir, "FilePerProcess"), world_env());
  Variable v = variable("g");
  // 4x5 local extent, one ghost row above, two columns on the right: interior 3x3.
  const std::vector<std::int32_t> data = {-1, -1, -1, -1, -1,  //
                                          11, 12, 13, -1, -1,  //
                                          21, 22, 23, -1, -1,  //
                                          31, 32, 33, -1, -1};
  store->write_iteration(0, {block_of(v, data, {{4, 5}, {1, 0}, {0, 2}}, world_rank())});
  const Dataset d =
      read_dataset(file_of(dir, 0, world_rank()), "g/P" + std::to_string(world_rank()));
  EXPECT_EQ(d.dims, (std::vector<std::uint64_t>{3, 3}));
  EXPECT_EQ(d.bytes, as_bytes(std::vector<std::int32_t>{11, 12, 13, 21, 22, 23, 31, 32, 33}));
}

TEST(StoreFilePerCore, WritesFileAndDatasetAttributes) {
  const std::string dir = fresh_dir("fpp_attributes");
  auto store = make_store_collectively(hdf5_store(dir, "FilePerCore"), world_env());
  Variable v = variable("pressure", "Pa");
  Variable bare = variable("bare");
  const std::vector<double> data(12, 2.5);
  const int w = world_rank();
  store->write_iteration(7, {block_of(v, data, {{3, 4}, {}, {}, {w * 3, 8}}, w + 20, 0, 7),
                             block_of(bare, data, {{12}}, w + 20, 0, 7)});
  const std::string file = file_of(dir, 7, w);
  const std::string path = "pressure/P" + std::to_string(w + 20);
  EXPECT_EQ(read_string_attribute(file, "/", "simulation"), "sim");
  EXPECT_EQ(read_int_attribute(file, "/", "iteration"), std::vector<std::int64_t>{7});
  EXPECT_EQ(read_int_attribute(file, "/", "writer"), std::vector<std::int64_t>{w});
  EXPECT_EQ(read_string_attribute(file, "/", "ecluse_version"),
            std::to_string(ECLUSE_VERSION_MAJOR) + "." + std::to_string(ECLUSE_VERSION_MINOR) +
                "." + std::to_string(ECLUSE_VERSION_PATCH));
  EXPECT_EQ(read_int_attribute(file, path, "iteration"), std::vector<std::int64_t>{7});
  EXPECT_EQ(read_int_attribute(file, path, "source"), std::vector<std::int64_t>{w + 20});
  EXPECT_EQ(read_int_attribute(file, path, "block"), std::vector<std::int64_t>{0});
  EXPECT_EQ(read_int_attribute(file, path, "global_offset"), (std::vector<std::int64_t>{w * 3, 8}));
  EXPECT_EQ(read_string_attribute(file, path, "units"), "Pa");
  const std::string bare_path = "bare/P" + std::to_string(w + 20);
  EXPECT_EQ(read_string_attribute(file, bare_path, "units"), "");
  EXPECT_EQ(read_int_attribute(file, bare_path, "global_offset"), std::vector<std::int64_t>{0});
}

TEST(StoreFilePerCore, SeveralBlocksAndSourcesPerWriterWithGroups) {
  const std::string dir = fresh_dir("fpp_domains");
  auto store = make_store_collectively(hdf5_store(dir, "FilePerCore"), world_env(2));
  Variable v = variable("fluid/velocity/u");
  const int w = world_rank();
  std::vector<std::vector<float>> data;
  for (int k = 0; k < 4; ++k) data.push_back(std::vector<float>(6, float(w * 4 + k)));
  std::vector<BlockData> blocks;  // this writer serves two clients of two domains each
  for (int k = 0; k < 4; ++k)
    blocks.push_back(block_of(v, data[k], {{2, 3}}, 2 * w + k / 2, k % 2));
  store->write_iteration(1, blocks);
  const std::string file = file_of(dir, 1, w);
  for (int k = 0; k < 4; ++k) {
    const std::string path =
        "fluid/velocity/u/P" + std::to_string(2 * w + k / 2) + "/B" + std::to_string(k % 2);
    EXPECT_EQ(read_dataset(file, path).bytes, as_bytes(data[k])) << path;
    EXPECT_EQ(read_int_attribute(file, path, "block"), std::vector<std::int64_t>{k % 2});
  }
  // P<source> is a group holding the blocks, not a dataset.
  EXPECT_THROW(read_dataset(file, "fluid/velocity/u/P" + std::to_string(2 * w)),
               std::runtime_error);
}

TEST(StoreFilePerCore, WriterWithoutBlocksWritesNoFile) {
  const std::string dir = fresh_dir("fpp_empty");
  auto store = make_store_collectively(hdf5_store(dir, "FilePerCore"), world_env());
  Variable v = variable("x");
  const std::vector<double> data = {1, 2};
  const int w = world_rank();
  store->write_iteration(0, w % 2 == 0 ? std::vector<BlockData>{block_of(v, data, {{2}}, w)}
                                       : std::vector<BlockData>{});
  store->write_iteration(1, {});
  MPI_Barrier(MPI_COMM_WORLD);
  if (w != 0) return;
  for (int writer = 0; writer < world_size(); ++writer) {
    EXPECT_EQ(std::filesystem::exists(file_of(dir, 0, writer)), writer % 2 == 0) << writer;
    EXPECT_FALSE(std::filesystem::exists(file_of(dir, 1, writer)));
  }
}

TEST(StoreFilePerCore, FileNamePatternMakesSubdirectories) {
  const std::string dir = fresh_dir("fpp_pattern");
  Store config = hdf5_store(dir + "/./out/", "FilePerCore",
                            {{"FileName", "{simulation}/step{iteration}/w{writer}.h5"}});
  auto store = make_store_collectively(config, world_env());
  Variable v = variable("x");
  const std::vector<std::int64_t> data = {5, 6, 7};
  store->write_iteration(12, {block_of(v, data, {{3}}, world_rank())});
  const std::string file = dir + "/out/sim/step12/w" + std::to_string(world_rank()) + ".h5";
  EXPECT_EQ(read_dataset(file, "x/P" + std::to_string(world_rank())).bytes, as_bytes(data));
}

TEST(StoreFilePerCore, BlockWithoutDataIsRejected) {
  const std::string dir = fresh_dir("fpp_nodata");
  auto store = make_store_collectively(hdf5_store(dir, "FilePerCore"), world_env());
  Variable v = variable("x");
  BlockData block;
  block.variable = &v;
  block.dims = {4};
  Error e = error_of([&] { store->write_iteration(0, {block}); });
  EXPECT_EQ(e.status(), ECLUSE_INVALID_BLOCK);
  EXPECT_STREQ(e.what(), "store 'h5': block 0 from source 0 of variable 'x' has no data");
}

TEST(StoreFilePerCore, Hdf5ErrorNamesFileAndCauseAndPublishesNothing) {
  const std::string dir = fresh_dir("fpp_duplicate");
  auto store = make_store_collectively(hdf5_store(dir, "FilePerCore"), world_env());
  Variable v = variable("x");
  const std::vector<double> data = {1, 2};
  const int w = world_rank();
  const BlockData block = block_of(v, data, {{2}}, w);
  Error e = error_of([&] { store->write_iteration(0, {block, block}); });
  EXPECT_EQ(e.status(), ECLUSE_IO_ERROR);
  EXPECT_EQ(std::string(e.what()), "HDF5 could not create dataset 'x/P" + std::to_string(w) +
                                       "' in '" + file_of(dir, 0, w) + "': name already exists");
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_TRUE(no_output(dir));
}

}  // namespace
}  // namespace ecluse::test
