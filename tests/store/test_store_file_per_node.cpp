// HDF5 store, FilePerNode mode: MPI_COMM_WORLD is split into virtual nodes of two ranks; rank 0
// reads every node's file back and compares it bit for bit with the blocks of the node's writers.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>

#include "StoreTestHelpers.hpp"

namespace ecluse::test {
namespace {

/** MPI_COMM_WORLD split into nodes of two consecutive ranks, as the runtime's node_comm. */
class VirtualNode {
 public:
  VirtualNode() { MPI_Comm_split(MPI_COMM_WORLD, node(), world_rank(), &comm_); }
  ~VirtualNode() { MPI_Comm_free(&comm_); }
  VirtualNode(const VirtualNode&) = delete;
  VirtualNode& operator=(const VirtualNode&) = delete;

  [[nodiscard]] StoreEnv env(int domains = 1) const {
    return {MPI_COMM_WORLD, world_rank(), comm_, node(), domains, "sim"};
  }
  static int node() { return world_rank() / 2; }
  static int nodes() { return (world_size() + 1) / 2; }
  static std::vector<int> writers_of(int node) {
    std::vector<int> writers;
    for (int w = 2 * node; w < std::min(2 * node + 2, world_size()); ++w) writers.push_back(w);
    return writers;
  }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

std::string file_of(const std::string& dir, int iteration, int node) {
  return dir + "/sim_It" + std::to_string(iteration) + "_Node" + std::to_string(node) + ".h5";
}

/** One block a writer holds: the client it came from and its domain. */
struct Client {
  int source = 0;
  int block = 0;
};

// A writer serves three clients of one domain, or two clients of two domains.
std::vector<Client> clients_of(int writer, int domains) {
  const int per_writer = domains == 1 ? 3 : 2;
  std::vector<Client> clients;
  for (int c = 0; c < per_writer; ++c) {
    for (int b = 0; b < domains; ++b) clients.push_back({writer * per_writer + c, b});
  }
  return clients;
}

std::string dataset_of(const std::string& variable, const Client& client, int domains) {
  const std::string path = variable + "/P" + std::to_string(client.source);
  return domains == 1 ? path : path + "/B" + std::to_string(client.block);
}

template <class T>
T value_at(const Client& c, std::uint64_t i) {
  if constexpr (std::is_floating_point_v<T>) {
    return T(c.source * 1e4 + c.block * 1e3 + double(i) + 0.125);
  } else {
    return T(c.source * 100000 + c.block * 10000 + std::int64_t(i));
  }
}

template <class T>
struct Case {
  Variable var;
  Shape shape;
};

// Ghosts in the innermost dimension, in the outermost only, in a middle one, and none: the
// interior reaches the file through every path a member can send it by.
const Case<double> kRho{variable("rho", "kg/m3"), {{4, 5, 6}, {1, 0, 2}, {1, 1, 0}}};
const Case<std::int32_t> kCount{variable("grid/count"), {{6, 5}, {2, 0}, {1, 0}}};
const Case<float> kTemp{variable("temp", "K"), {{3, 4, 5}, {0, 1, 0}, {0, 0, 0}}};
const Case<std::int64_t> kId{variable("id"), {{7}}};

Shape placed(Shape shape, const Client& client) {
  shape.position.assign(shape.dims.size(), 0);
  shape.position[0] = client.source * 10 + client.block;
  return shape;
}

/** The blocks of one writer, owning their data. */
class Blocks {
 public:
  explicit Blocks(int iteration = 0) : iteration_(iteration) {}
  template <class T>
  void add(const Case<T>& c, const Client& client) {
    const auto interior = interior_of(c.shape);
    auto data = std::make_shared<std::vector<T>>(
        fill_block(c.shape, T(-7), [&](const std::vector<std::uint64_t>& index) {
          return value_at<T>(client, flat_index(index, interior));
        }));
    list_.push_back(
        block_of(c.var, *data, placed(c.shape, client), client.source, client.block, iteration_));
    keep_.push_back(data);
  }
  void add_all(int writer, int domains) {
    for (const Client& client : clients_of(writer, domains)) {
      add(kRho, client);
      add(kCount, client);
      add(kTemp, client);
      add(kId, client);
    }
  }
  [[nodiscard]] const std::vector<BlockData>& list() const { return list_; }

 private:
  int iteration_;
  std::vector<BlockData> list_;
  std::vector<std::shared_ptr<const void>> keep_;
};

template <class T>
void expect_block(const std::string& file, const Case<T>& c, const Client& client, int domains,
                  int iteration) {
  const auto interior = interior_of(c.shape);
  std::vector<T> expected;
  for (std::uint64_t i = 0; i < element_count_of(interior); ++i) {
    expected.push_back(value_at<T>(client, i));
  }
  const std::string path = dataset_of(c.var.name, client, domains);
  const Dataset d = read_dataset(file, path);
  EXPECT_EQ(d.dims, interior) << path;
  EXPECT_EQ(d.element_size, sizeof(T)) << path;
  EXPECT_EQ(d.is_float, std::is_floating_point_v<T>) << path;
  EXPECT_EQ(d.bytes, as_bytes(expected)) << file << ":" << path;
  EXPECT_EQ(read_int_attribute(file, path, "iteration"), std::vector<std::int64_t>{iteration});
  EXPECT_EQ(read_int_attribute(file, path, "source"), std::vector<std::int64_t>{client.source});
  EXPECT_EQ(read_int_attribute(file, path, "block"), std::vector<std::int64_t>{client.block});
  EXPECT_EQ(read_int_attribute(file, path, "global_offset"), placed(c.shape, client).position);
  EXPECT_EQ(read_string_attribute(file, path, "units"), c.var.unit);
}

herr_t collect_dataset(hid_t, const char* name, const H5O_info_t* info, void* names) {
  if (info->type == H5O_TYPE_DATASET)
    static_cast<std::vector<std::string>*>(names)->push_back(name);
  return 0;
}

std::vector<std::string> datasets_in(const std::string& file) {
  std::vector<std::string> names;
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT_GE(f, 0) << file;
  if (f < 0) return names;
  H5Ovisit(f, H5_INDEX_NAME, H5_ITER_NATIVE, collect_dataset, &names);
  H5Fclose(f);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> expected_datasets(int node, int domains) {
  std::vector<std::string> names;
  for (int writer : VirtualNode::writers_of(node)) {
    for (const Client& client : clients_of(writer, domains)) {
      for (const char* variable : {"rho", "grid/count", "temp", "id"}) {
        names.push_back(dataset_of(variable, client, domains));
      }
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

void expect_node_file(const std::string& file, int node, int domains, int iteration) {
  EXPECT_EQ(datasets_in(file), expected_datasets(node, domains)) << file;
  for (int writer : VirtualNode::writers_of(node)) {
    for (const Client& client : clients_of(writer, domains)) {
      expect_block(file, kRho, client, domains, iteration);
      expect_block(file, kCount, client, domains, iteration);
      expect_block(file, kTemp, client, domains, iteration);
      expect_block(file, kId, client, domains, iteration);
    }
  }
}

std::vector<std::string> node_files(const std::string& dir, int iteration) {
  std::vector<std::string> files;
  for (int node = 0; node < VirtualNode::nodes(); ++node) {
    files.push_back(file_of(dir, iteration, node));
  }
  return files;
}

std::vector<std::string> sorted(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  return names;
}

class StoreFilePerNode : public ::testing::TestWithParam<int> {};

TEST_P(StoreFilePerNode, OneFilePerNodeHoldsEveryBlockOfItsWriters) {
  const int domains = GetParam();
  const std::string dir = fresh_dir("fpn_blocks_" + std::to_string(domains));
  VirtualNode node;
  auto store = make_store_collectively(hdf5_store(dir, "FilePerNode"), node.env(domains));
  for (int iteration : {4, 5}) {
    Blocks blocks(iteration);
    blocks.add_all(world_rank(), domains);
    store->write_iteration(iteration, blocks.list());
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  std::vector<std::string> expected = node_files(dir, 4);
  for (const std::string& file : node_files(dir, 5)) expected.push_back(file);
  EXPECT_EQ(sorted(files_ending_with(dir, "")), sorted(expected));
  for (int n = 0; n < VirtualNode::nodes(); ++n) {
    for (int iteration : {4, 5})
      expect_node_file(file_of(dir, iteration, n), n, domains, iteration);
  }
}

INSTANTIATE_TEST_SUITE_P(Domains, StoreFilePerNode, ::testing::Values(1, 2));

TEST(StoreFilePerNodeFiles, FileAttributesNameTheNode) {
  const std::string dir = fresh_dir("fpn_attributes");
  VirtualNode node;
  auto store = make_store_collectively(hdf5_store(dir, "FilePerNode"), node.env());
  Blocks blocks(9);
  blocks.add(kId, {world_rank(), 0});
  store->write_iteration(9, blocks.list());
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string file = file_of(dir, 9, VirtualNode::node());
  EXPECT_EQ(read_string_attribute(file, "/", "simulation"), "sim");
  EXPECT_EQ(read_int_attribute(file, "/", "iteration"), std::vector<std::int64_t>{9});
  EXPECT_EQ(read_int_attribute(file, "/", "node"), std::vector<std::int64_t>{VirtualNode::node()});
  EXPECT_EQ(read_string_attribute(file, "/", "ecluse_version"),
            std::to_string(ECLUSE_VERSION_MAJOR) + "." + std::to_string(ECLUSE_VERSION_MINOR) +
                "." + std::to_string(ECLUSE_VERSION_PATCH));
  EXPECT_THROW(read_int_attribute(file, "/", "writer"), std::runtime_error);
}

void expect_same_dataset(const std::string& a, const std::string& b, const std::string& path) {
  const Dataset da = read_dataset(a, path);
  const Dataset db = read_dataset(b, path);
  EXPECT_EQ(da.dims, db.dims) << path;
  EXPECT_EQ(da.element_size, db.element_size) << path;
  EXPECT_EQ(da.is_float, db.is_float) << path;
  EXPECT_EQ(da.bytes, db.bytes) << path;
  for (const char* name : {"iteration", "source", "block", "global_offset"}) {
    EXPECT_EQ(read_int_attribute(a, path, name), read_int_attribute(b, path, name)) << path;
  }
  EXPECT_EQ(read_string_attribute(a, path, "units"), read_string_attribute(b, path, "units"));
}

TEST(StoreFilePerNodeFiles, DatasetsAreThoseOfFilePerCore) {
  const std::string dir = fresh_dir("fpn_as_per_core");
  VirtualNode node;
  Blocks blocks(2);
  blocks.add_all(world_rank(), 2);
  make_store_collectively(hdf5_store(dir + "/node", "FilePerNode"), node.env(2))
      ->write_iteration(2, blocks.list());
  make_store_collectively(hdf5_store(dir + "/core", "FilePerCore"), node.env(2))
      ->write_iteration(2, blocks.list());
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string per_node = file_of(dir + "/node", 2, VirtualNode::node());
  const std::string per_core = dir + "/core/sim_It2_Pr" + std::to_string(world_rank()) + ".h5";
  for (const std::string& path : datasets_in(per_core)) {
    expect_same_dataset(per_node, per_core, path);
  }
}

// Above one MPI message (16 MiB) a block moves in several; with ghosts it is packed first.
TEST(StoreFilePerNodeFiles, BlocksLargerThanOneMessage) {
  const std::string dir = fresh_dir("fpn_large");
  VirtualNode node;
  auto store = make_store_collectively(hdf5_store(dir, "FilePerNode"), node.env());
  const Case<double> flat{variable("flat"), {{2200000}}};
  // Rows of 1999 doubles: packed rows straddle the message boundaries.
  const Case<double> ghosted{variable("ghosted"), {{1103, 2001}, {1, 1}, {2, 1}}};
  Blocks blocks(0);
  blocks.add(flat, {world_rank(), 0});
  blocks.add(ghosted, {world_rank(), 0});
  store->write_iteration(0, blocks.list());
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  for (int w = 0; w < world_size(); ++w) {
    const std::string file = file_of(dir, 0, w / 2);
    expect_block(file, flat, {w, 0}, 1, 0);
    expect_block(file, ghosted, {w, 0}, 1, 0);
  }
}

std::vector<BlockData> if_holding(bool holding, const Blocks& blocks) {
  return holding ? blocks.list() : std::vector<BlockData>{};
}

TEST(StoreFilePerNodeFiles, NodesWithoutBlocksWriteNoFile) {
  const std::string dir = fresh_dir("fpn_empty");
  VirtualNode node;
  auto store = make_store_collectively(hdf5_store(dir, "FilePerNode"), node.env());
  const int w = world_rank();
  Blocks blocks(1);
  blocks.add(kRho, {w, 0});
  store->write_iteration(0, {});
  // The node's first writer holds nothing: it writes its members' blocks only.
  store->write_iteration(1, if_holding(w % 2 == 1, blocks));
  // Only the last node holds blocks.
  store->write_iteration(2, if_holding(VirtualNode::node() == VirtualNode::nodes() - 1, blocks));
  MPI_Barrier(MPI_COMM_WORLD);
  if (w != 0) return;
  std::vector<std::string> expected;
  for (int n = 0; n < VirtualNode::nodes(); ++n) {
    if (VirtualNode::writers_of(n).size() == 2) expected.push_back(file_of(dir, 1, n));
  }
  expected.push_back(file_of(dir, 2, VirtualNode::nodes() - 1));
  EXPECT_EQ(sorted(files_ending_with(dir, "")), sorted(expected));
  for (int n = 0; n < VirtualNode::nodes(); ++n) {
    if (VirtualNode::writers_of(n).size() < 2) continue;
    EXPECT_EQ(datasets_in(file_of(dir, 1, n)),
              std::vector<std::string>{dataset_of("rho", {2 * n + 1, 0}, 1)});
    expect_block(file_of(dir, 1, n), kRho, {2 * n + 1, 0}, 1, 1);
  }
}

const char* const kFix =
    ". Fix: make every component of this path a directory you may write to, or change the "
    "FilesPath option of the store";

TEST(StoreFilePerNodeFailures, ImpossibleDirectoryFailsOnEveryWriterOfTheNode) {
  const std::string dir = fresh_dir("fpn_directory");
  VirtualNode node;
  auto store = make_store_collectively(
      hdf5_store(dir, "FilePerNode", {{"FileName", "It{iteration}/{simulation}_N{node}.h5"}}),
      node.env());
  Blocks blocks(0);
  blocks.add(kCount, {world_rank(), 0});
  store->write_iteration(0, blocks.list());
  if (world_rank() == 0) std::ofstream(dir + "/It1") << "in the way";
  MPI_Barrier(MPI_COMM_WORLD);
  // With several nodes the last one holds nothing: it writes no file and has no error.
  const bool idle = VirtualNode::nodes() > 1 && VirtualNode::node() == VirtualNode::nodes() - 1;
  if (idle) {
    EXPECT_NO_THROW(store->write_iteration(1, {}));
  } else {
    Error e = error_of([&] { store->write_iteration(1, blocks.list()); });
    EXPECT_EQ(e.status(), ECLUSE_IO_ERROR);
    EXPECT_EQ(std::string(e.what()), "cannot create output directory '" + dir +
                                         "/It1' for store 'h5': Not a directory" + kFix);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string earlier = dir + "/It0/sim_N" + std::to_string(VirtualNode::node()) + ".h5";
  expect_block(earlier, kCount, {world_rank(), 0}, 1, 0);
  EXPECT_TRUE(files_ending_with(dir, ".part").empty());
}

TEST(StoreFilePerNodeFailures, InvalidBlockOfOneWriterFailsTheWholeNode) {
  const std::string dir = fresh_dir("fpn_invalid");
  VirtualNode node;
  auto store = make_store_collectively(hdf5_store(dir, "FilePerNode"), node.env());
  Blocks blocks(0);
  blocks.add(kId, {world_rank(), 0});
  std::vector<BlockData> list = blocks.list();
  const int culprit = std::min(2 * VirtualNode::node() + 1, world_size() - 1);
  if (world_rank() == culprit) list[0].data = nullptr;
  Error e = error_of([&] { store->write_iteration(0, list); });
  EXPECT_EQ(e.status(), ECLUSE_INVALID_BLOCK);
  EXPECT_EQ(std::string(e.what()), "store 'h5': block 0 from source " + std::to_string(culprit) +
                                       " of variable 'id' has no data");
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_TRUE(no_output(dir));
}

// The leader fails on a member's first block; it still takes the member's later blocks, so the
// next iteration finds no stray message and writes normally.
TEST(StoreFilePerNodeFailures, Hdf5ErrorOnAMemberBlockFailsTheNodeAndTheNextIterationWorks) {
  const std::string dir = fresh_dir("fpn_duplicate");
  VirtualNode node;
  auto store = make_store_collectively(hdf5_store(dir, "FilePerNode"), node.env());
  const int leader = 2 * VirtualNode::node();
  Blocks clashing(0);
  clashing.add(kRho, {leader, 0});  // the same dataset on every writer of the node
  clashing.add(kCount, {world_rank(), 0});
  const std::string file = file_of(dir, 0, VirtualNode::node());
  if (VirtualNode::writers_of(VirtualNode::node()).size() == 2) {
    Error e = error_of([&] { store->write_iteration(0, clashing.list()); });
    EXPECT_EQ(e.status(), ECLUSE_IO_ERROR);
    EXPECT_EQ(std::string(e.what()), "HDF5 could not create dataset 'rho/P" +
                                         std::to_string(leader) + "' in '" + file +
                                         "': name already exists");
  } else {
    store->write_iteration(0, clashing.list());
  }
  Blocks next(1);
  next.add_all(world_rank(), 1);
  store->write_iteration(1, next.list());
  MPI_Barrier(MPI_COMM_WORLD);
  const bool failed = VirtualNode::writers_of(VirtualNode::node()).size() == 2;
  EXPECT_EQ(std::filesystem::exists(file), !failed);
  EXPECT_TRUE(files_ending_with(dir, ".part").empty());
  if (world_rank() == 0) {
    for (int n = 0; n < VirtualNode::nodes(); ++n) expect_node_file(file_of(dir, 1, n), n, 1, 1);
  }
}

TEST(StoreFilePerNodeFailures, FullDiskFailsOnEveryWriterOfTheNode) {
  const std::string dir = fresh_dir("fpn_full_disk");
  VirtualNode node;
  auto store = make_store_collectively(hdf5_store(dir, "FilePerNode"), node.env());
  std::vector<double> data(32768, double(world_rank()));  // 256 KiB
  Variable v = variable("big");
  const std::vector<BlockData> blocks = {block_of(v, data, {{data.size()}}, world_rank())};
  Error e = [&] {
    FileSizeLimit limit(64 * 1024);
    return error_of([&] { store->write_iteration(1, blocks); });
  }();
  const auto writers = std::uint64_t(VirtualNode::writers_of(VirtualNode::node()).size());
  const std::uint64_t bytes = (262144 + 16384) * writers + 65536;
  const std::string file = file_of(dir, 1, VirtualNode::node());
  EXPECT_EQ(e.status(), ECLUSE_IO_ERROR);
  EXPECT_EQ(std::string(e.what()),
            "cannot reserve " + std::to_string(bytes) + " bytes for '" + file +
                "': File too large. Fix: free space on that file system or change the FilesPath "
                "option of store 'h5'");
  store->write_iteration(2, blocks);  // space is back
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_FALSE(std::filesystem::exists(file));
  EXPECT_EQ(
      read_dataset(file_of(dir, 2, VirtualNode::node()), "big/P" + std::to_string(world_rank()))
          .bytes,
      as_bytes(data));
  EXPECT_TRUE(files_ending_with(dir, ".part").empty());
}

TEST(StoreFilePerNodeFiles, FileNameNeedsNodeWithSeveralNodes) {
  VirtualNode node;
  const std::string dir = fresh_dir("fpn_pattern");
  Store config = hdf5_store(dir, "FilePerNode", {{"FileName", "{simulation}_It{iteration}.h5"}});
  if (VirtualNode::nodes() > 1) {
    EXPECT_STREQ(error_of([&] { make_store(config, node.env()); }).what(),
                 "store 'h5' of type 'HDF5': FileName '{simulation}_It{iteration}.h5' lacks "
                 "{node}: the files of the writers' nodes would overwrite each other");
  } else {
    EXPECT_NO_THROW(make_store_collectively(config, node.env()));
  }
  // {node} in FilePerCore: one directory per node.
  config = hdf5_store(dir, "FilePerCore", {{"FileName", "n{node}/{simulation}_Pr{writer}.h5"}});
  Blocks blocks(0);
  blocks.add(kId, {world_rank(), 0});
  make_store_collectively(config, node.env())->write_iteration(0, blocks.list());
  const std::string file = dir + "/n" + std::to_string(VirtualNode::node()) + "/sim_Pr" +
                           std::to_string(world_rank()) + ".h5";
  expect_block(file, kId, {world_rank(), 0}, 1, 0);
}

}  // namespace
}  // namespace ecluse::test
