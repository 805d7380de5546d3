// Failed writes never publish a file: an impossible directory and a full disk (RLIMIT_FSIZE)
// leave earlier iterations intact, no file under the failed iteration's name, no .part.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "StoreTestHelpers.hpp"

namespace ecluse::test {
namespace {

const char* const kFix =
    ". Fix: make every component of this path a directory you may write to, or change the "
    "FilesPath option of the store";

const char* const kFullFix =
    ". Fix: free space on that file system or change the FilesPath option of store 'h5'";

void make_blocker_file(const std::string& path) {
  if (world_rank() == 0) std::ofstream(path) << "in the way";
  MPI_Barrier(MPI_COMM_WORLD);
}

std::vector<double> big_data(int iteration) {
  std::vector<double> data(32768);  // 256 KiB per block
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = iteration * 1e6 + double(i);
  return data;
}

std::string per_core_file(const std::string& dir, int iteration, int writer) {
  return dir + "/sim_It" + std::to_string(iteration) + "_Pr" + std::to_string(writer) + ".h5";
}

TEST(StoreFailures, ImpossibleDirectoryKeepsEarlierIterations) {
  const std::string dir = fresh_dir("fail_directory");
  Store config =
      hdf5_store(dir, "FilePerCore", {{"FileName", "It{iteration}/{simulation}_Pr{writer}.h5"}});
  auto store = make_store(config, world_env());
  Variable v = variable("x");
  const int w = world_rank();
  const std::vector<std::int32_t> data = {w, w + 1, w + 2};
  store->write_iteration(0, {block_of(v, data, {{3}}, w)});
  make_blocker_file(dir + "/It1");
  Error e = error_of([&] { store->write_iteration(1, {block_of(v, data, {{3}}, w)}); });
  EXPECT_EQ(e.status(), ECLUSE_IO_ERROR);
  EXPECT_EQ(std::string(e.what()), "cannot create output directory '" + dir +
                                       "/It1' for store 'h5': Not a directory" + kFix);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(read_dataset(dir + "/It0/sim_Pr" + std::to_string(w) + ".h5", "x/P" + std::to_string(w))
                .bytes,
            as_bytes(data));
  EXPECT_TRUE(files_ending_with(dir, ".part").empty());
}

TEST(StoreFailures, FilesPathBelowAFile) {
  const std::string dir = fresh_dir("fail_files_path");
  make_blocker_file(dir + "/blocker");
  for (const std::string mode : {"FilePerCore", "Collective"}) {
    auto store = make_store(hdf5_store(dir + "/blocker/out", mode), world_env());
    Variable v = variable("x");
    const std::vector<double> data = {1.0};
    const std::int64_t w = world_rank();
    Error e = error_of([&] { store->write_iteration(0, {block_of(v, data, {{1}, {}, {}, {w}})}); });
    EXPECT_EQ(e.status(), ECLUSE_IO_ERROR) << mode;
    EXPECT_EQ(std::string(e.what()), "cannot create output directory '" + dir +
                                         "/blocker/out' for store 'h5': Not a directory" + kFix)
        << mode;
  }
}

TEST(StoreFailures, CollectiveImpossibleDirectoryFailsOnEveryRank) {
  const std::string dir = fresh_dir("fail_collective_directory");
  auto store = make_store(
      hdf5_store(dir, "Collective", {{"FileName", "It{iteration}/{simulation}.h5"}}), world_env());
  Variable v = variable("x");
  const std::int64_t w = world_rank();
  const std::vector<std::int64_t> data = {w * 3};
  const Shape shape{{1}, {}, {}, {w}};
  store->write_iteration(0, {block_of(v, data, shape, int(w))});
  make_blocker_file(dir + "/It1");
  Error e = error_of([&] { store->write_iteration(1, {block_of(v, data, shape, int(w))}); });
  EXPECT_EQ(e.status(), ECLUSE_IO_ERROR);
  EXPECT_EQ(std::string(e.what()), "cannot create output directory '" + dir +
                                       "/It1' for store 'h5': Not a directory" + kFix);
  MPI_Barrier(MPI_COMM_WORLD);
  if (w != 0) return;
  std::vector<std::int64_t> expected;
  for (int k = 0; k < world_size(); ++k) expected.push_back(3 * k);
  EXPECT_EQ(read_dataset(dir + "/It0/sim.h5", "x").bytes, as_bytes(expected));
  EXPECT_TRUE(files_ending_with(dir, ".part").empty());
}

TEST(StoreFailures, FullDiskFilePerCore) {
  const std::string dir = fresh_dir("fail_full_disk");
  auto store = make_store(hdf5_store(dir, "FilePerCore"), world_env());
  Variable v = variable("big");
  const int w = world_rank();
  const auto first = big_data(0);
  const auto second = big_data(1);
  store->write_iteration(0, {block_of(v, first, {{first.size()}}, w)});
  Error e = [&] {
    FileSizeLimit limit(64 * 1024);
    return error_of(
        [&] { store->write_iteration(1, {block_of(v, second, {{second.size()}}, w)}); });
  }();
  EXPECT_EQ(e.status(), ECLUSE_IO_ERROR);
  // 256 KiB of data + 64 KiB + 16 KiB per dataset of margin for the metadata.
  EXPECT_EQ(std::string(e.what()), "cannot reserve 344064 bytes for '" + per_core_file(dir, 1, w) +
                                       "': File too large" + kFullFix);
  EXPECT_FALSE(std::filesystem::exists(per_core_file(dir, 1, w)));
  EXPECT_FALSE(std::filesystem::exists(per_core_file(dir, 1, w) + ".part"));
  EXPECT_EQ(read_dataset(per_core_file(dir, 0, w), "big/P" + std::to_string(w)).bytes,
            as_bytes(first));
  store->write_iteration(2, {block_of(v, second, {{second.size()}}, w)});  // space is back
  EXPECT_EQ(read_dataset(per_core_file(dir, 2, w), "big/P" + std::to_string(w)).bytes,
            as_bytes(second));
}

TEST(StoreFailures, FullDiskCollectiveFailsOnEveryRank) {
  const std::string dir = fresh_dir("fail_full_disk_collective");
  auto store = make_store(hdf5_store(dir, "Collective"), world_env());
  Variable v = variable("big");
  const std::int64_t w = world_rank();
  const auto first = big_data(0);
  const Shape shape{{first.size()}, {}, {}, {w * std::int64_t(first.size())}};
  store->write_iteration(0, {block_of(v, first, shape, int(w))});
  Error e = [&] {
    FileSizeLimit limit(64 * 1024);
    return error_of([&] { store->write_iteration(1, {block_of(v, first, shape, int(w))}); });
  }();
  EXPECT_EQ(e.status(), ECLUSE_IO_ERROR);
  const std::uint64_t bytes = 262144 * std::uint64_t(world_size()) + 65536 + 16384;
  EXPECT_EQ(std::string(e.what()), "cannot reserve " + std::to_string(bytes) + " bytes for '" +
                                       dir + "/sim_It1.h5': File too large" + kFullFix);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_FALSE(std::filesystem::exists(dir + "/sim_It1.h5"));
  EXPECT_TRUE(files_ending_with(dir, ".part").empty());
  if (w != 0) return;
  const Dataset d = read_dataset(dir + "/sim_It0.h5", "big");
  EXPECT_EQ(d.dims, std::vector<std::uint64_t>{first.size() * std::uint64_t(world_size())});
  std::vector<double> expected;
  for (int k = 0; k < world_size(); ++k)
    expected.insert(expected.end(), first.begin(), first.end());
  EXPECT_EQ(d.bytes, as_bytes(expected));
}

}  // namespace
}  // namespace ecluse::test
