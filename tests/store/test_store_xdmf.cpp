// XDMFMode on 1, 2 and 4 writers: the documents name every writer's blocks and the iteration
// that wrote each constant, the temporal collection grows by one step per iteration,
// FirstIteration stops after one, and a writer whose HDF5 write fails leaves no document and
// no writer waiting.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "StoreTestHelpers.hpp"
#include "core/Log.hpp"
#include "store/XdmfStore.hpp"

namespace ecluse::test {
namespace {

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

struct Fields {
  Variable t = variable("t");
  Variable c = constant();
  std::vector<double> t_data = std::vector<double>(6, 1.5);
  std::vector<std::int32_t> c_data = {1, 2, 3};
  static Variable constant() {
    Variable v = variable("c");
    v.time_varying = false;
    return v;
  }
  std::vector<BlockData> at(int iteration) {
    const int w = world_rank();
    std::vector<BlockData> blocks = {
        block_of(t, t_data, {{2, 3}, {}, {}, {2 * w, 0}}, w, 0, iteration)};
    if (iteration == 0) blocks.push_back(block_of(c, c_data, {{3}}, w, 0, iteration));
    return blocks;
  }
};

TEST(StoreXdmf, EveryIterationDescribesEveryWritersBlocks) {
  const std::string dir = fresh_dir("xdmf_every");
  auto store = make_store_collectively(
      hdf5_store(dir, "FilePerCore", {{"XDMFMode", "EveryIteration"}}), world_env());
  Fields fields;
  store->write_iteration(0, fields.at(0));
  store->write_iteration(1, fields.at(1));
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string it1 = read_text(xdmf_iteration_path(dir, "sim", 1));
  const int n = world_size();
  EXPECT_EQ(count_of(it1, R"(GridType="Uniform")"), static_cast<std::size_t>(2 * n));
  for (int w = 0; w < n; ++w) {
    const std::string p = std::to_string(w);
    EXPECT_NE(it1.find(">sim_It1_Pr" + p + ".h5:/t/P" + p + "<"), std::string::npos) << it1;
    EXPECT_NE(it1.find(">sim_It0_Pr" + p + ".h5:/c/P" + p + "<"), std::string::npos) << it1;
    EXPECT_NE(it1.find(R"(Format="XML">0 )" + std::to_string(2 * w) + " 0<"), std::string::npos);
  }
  const std::string temporal = read_text(xdmf_temporal_path(dir, "sim"));
  EXPECT_EQ(count_of(temporal, "<xi:include href=\"sim_It"), 2u);
  EXPECT_NE(temporal.find(R"(<Time Value="1"/>)"), std::string::npos);
  EXPECT_TRUE(files_ending_with(dir, ".part").empty());
}

// The temporal collection was rewritten whole at every iteration: O(n^2) bytes over a run (22 MB
// a step at 100,000 steps). After 100 steps it is rewritten when it grew by a tenth (or after
// 30 s), and completed when the store closes.
TEST(StoreXdmf, TheTemporalCollectionLagsByATenthAtMostAndIsCompleteAtTheEnd) {
  const std::string dir = fresh_dir("xdmf_lag");
  const std::string temporal = xdmf_temporal_path(dir, "sim");
  {
    auto store = make_store_collectively(
        hdf5_store(dir, "FilePerCore", {{"XDMFMode", "EveryIteration"}}), world_env());
    Fields fields;
    for (int it = 0; it < 100; ++it) store->write_iteration(it, fields.at(it));
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_EQ(count_of(read_text(temporal), "<xi:include"), 100u);  // every step so far
    for (int it = 100; it < 150; ++it) store->write_iteration(it, fields.at(it));
    MPI_Barrier(MPI_COMM_WORLD);
    const std::size_t listed = count_of(read_text(temporal), "<xi:include");
    EXPECT_LT(listed, 150u);        // not rewritten at every step
    EXPECT_GE(listed * 11, 1500u);  // behind by a tenth at most
    EXPECT_TRUE(std::filesystem::exists(xdmf_iteration_path(dir, "sim", 149)));
    MPI_Barrier(MPI_COMM_WORLD);  // every rank read it before the first writer completes it
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string text = read_text(temporal);
  EXPECT_EQ(count_of(text, "<xi:include"), 150u);
  EXPECT_NE(text.find(R"(<Time Value="149"/>)"), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 8), "</Xdmf>\n");
}

TEST(StoreXdmf, CollectiveFileIsOneGridAtTheGlobalExtent) {
  const std::string dir = fresh_dir("xdmf_collective");
  auto store = make_store_collectively(
      hdf5_store(dir, "Collective", {{"XDMFMode", "EveryIteration"}}), world_env());
  Fields fields;
  const int w = world_rank();
  // the last writer has no block: the extent is the reach of the others' (or 2 x 3 alone)
  std::vector<BlockData> blocks = fields.at(1);
  if (w == world_size() - 1 && w > 0) blocks.clear();
  store->write_iteration(1, blocks);
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string text = read_text(xdmf_iteration_path(dir, "sim", 1));
  const int rows = 2 * std::max(1, world_size() - 1);
  EXPECT_NE(text.find(R"(<Grid Name="t" GridType="Uniform">)"), std::string::npos) << text;
  EXPECT_NE(text.find("Dimensions=\"1 " + std::to_string(rows) +
                      R"( 3" NumberType="Float" Precision="8" Format="HDF">sim_It1.h5:/t<)"),
            std::string::npos)
      << text;
}

TEST(StoreXdmf, DamarisBlocksWithoutPositionInACollectiveFileAreDescribedOneEach) {
  // The collective store writes them one dataset each (<var>/P<source>): so does the document.
  if (world_size() == 1) GTEST_SKIP() << "needs two writers";
  const std::string dir = fresh_dir("xdmf_collective_pieces");
  Config damaris;
  damaris.dialect = Dialect::Damaris;
  StoreEnv env = world_env();
  env.config = &damaris;
  auto store =
      make_store_collectively(hdf5_store(dir, "Collective", {{"XDMFMode", "EveryIteration"}}), env);
  Variable x = variable("x");
  Variable y = variable("y");  // blocks of one size, not copies (their values differ)
  const int w = world_rank();
  const std::vector<double> mine(std::size_t(w + 1), 0.5);
  const std::vector<double> other(2, double(w));
  store->write_iteration(
      0, {block_of(x, mine, {{std::uint64_t(w + 1)}}, w), block_of(y, other, {{2}}, w)});
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string text = read_text(xdmf_iteration_path(dir, "sim", 0));
  for (int k = 0; k < world_size(); ++k) {
    EXPECT_NE(text.find(R"(Dimensions="1 1 2" NumberType="Float" Precision="8" Format="HDF">)"
                        "sim_It0.h5:/y/P" +
                        std::to_string(k) + "<"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("Dimensions=\"1 1 " + std::to_string(k + 1) +
                        R"(" NumberType="Float" Precision="8" Format="HDF">sim_It0.h5:/x/P)" +
                        std::to_string(k) + "<"),
              std::string::npos)
        << text;
    EXPECT_EQ(read_dataset(dir + "/sim_It0.h5", "x/P" + std::to_string(k)).bytes,
              as_bytes(std::vector<double>(std::size_t(k + 1), 0.5)));
  }
  EXPECT_EQ(text.find(">sim_It0.h5:/x<"), std::string::npos) << text;
  EXPECT_EQ(text.find(">sim_It0.h5:/y<"), std::string::npos) << text;
}

TEST(StoreXdmf, FirstIterationWritesOneDocument) {
  const std::string dir = fresh_dir("xdmf_first");
  auto store = make_store_collectively(
      hdf5_store(dir, "FilePerCore", {{"XDMFMode", "FirstIteration"}}), world_env());
  Fields fields;
  store->write_iteration(0, {});  // nothing written anywhere: not the first iteration written
  store->write_iteration(1, fields.at(0));
  store->write_iteration(2, fields.at(2));
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<std::string> documents = files_ending_with(dir, ".xmf");
  std::sort(documents.begin(), documents.end());
  EXPECT_EQ(documents, (std::vector<std::string>{xdmf_temporal_path(dir, "sim"),
                                                 xdmf_iteration_path(dir, "sim", 1)}));
  EXPECT_EQ(count_of(read_text(xdmf_temporal_path(dir, "sim")), "<xi:include"), 1u);
}

TEST(StoreXdmf, OneWriterFailingLeavesNoDocumentAndNoWriterWaiting) {
  const std::string dir = fresh_dir("xdmf_failure");
  Store config = hdf5_store(
      dir, "FilePerCore",
      {{"XDMFMode", "EveryIteration"}, {"FileName", "W{writer}/It{iteration}/{simulation}.h5"}});
  auto store = make_store_collectively(config, world_env());
  Fields fields;
  store->write_iteration(0, fields.at(0));
  const int last = world_size() - 1;
  if (world_rank() == last) {
    std::ofstream(dir + "/W" + std::to_string(last) + "/It1") << "not a directory";
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const bool failed = [&] {
    try {
      store->write_iteration(1, fields.at(1));
      return false;
    } catch (const Error& e) {
      return e.status() == ECLUSE_IO_ERROR;
    }
  }();
  EXPECT_EQ(failed, world_rank() == last);
  store->write_iteration(2, fields.at(2));  // the next iteration is described again
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_FALSE(std::filesystem::exists(xdmf_iteration_path(dir, "sim", 1)));
  EXPECT_TRUE(std::filesystem::exists(xdmf_iteration_path(dir, "sim", 2)));
  const std::string temporal = read_text(xdmf_temporal_path(dir, "sim"));
  EXPECT_EQ(count_of(temporal, "<xi:include"), 2u);
  EXPECT_EQ(temporal.find("sim_It1.xmf"), std::string::npos);
}

TEST(StoreXdmf, TwoXdmfStoresInOneDirectoryAreRefused) {
  const std::string dir = fresh_dir("xdmf_shared_directory");
  Config config;
  config.stores = {hdf5_store(dir, "FilePerCore", {{"XDMFMode", "EveryIteration"}}),
                   hdf5_store(dir + "/", "Collective", {{"XDMFMode", "FirstIteration"}}),
                   hdf5_store(dir, "Collective")};
  config.stores[1].name = "b";
  config.stores[2].name = "c";  // no XDMF: may share the directory
  StoreEnv env = world_env();
  env.config = &config;
  const Error e = error_of([&] { make_store_collectively(config.stores[0], env); });
  EXPECT_EQ(e.status(), ECLUSE_CONFIG_ERROR);
  EXPECT_EQ(std::string(e.what()),
            "store 'h5' of type 'HDF5': XDMFMode writes <simulation>_It<iteration>.xmf and "
            "<simulation>.xmf into FilesPath '" +
                dir +
                "', as store 'b' does: their documents would replace each other. Give "
                "each store its own FilesPath");
  config.stores[1].options["FilesPath"] = dir + "/other";
  EXPECT_NE(make_store_collectively(config.stores[0], env), nullptr);
}

// Two stores publishing the same names into one directory replaced each other's files at every
// iteration, every call returning OK (a name without {iteration}: unit_config_limits).
TEST(StoreFiles, TwoStoresWithTheSameFileNamesInOneDirectoryAreRefused) {
  const std::string dir = fresh_dir("same_names");
  Config config;
  config.stores = {hdf5_store(dir, "FilePerCore"), hdf5_store(dir + "/.", "FilePerCore"),
                   hdf5_store(dir, "Collective")};
  config.stores[1].name = "b";
  config.stores[2].name = "c";  // another mode's default name: no clash
  StoreEnv env = world_env();
  env.config = &config;
  const Error e = error_of([&] { make_store_collectively(config.stores[0], env); });
  EXPECT_EQ(e.status(), ECLUSE_CONFIG_ERROR);
  EXPECT_EQ(std::string(e.what()),
            "store 'h5' of type 'HDF5': its files ('{simulation}_It{iteration}_Pr{writer}.h5' in "
            "FilesPath '" +
                dir +
                "') have the names store 'b' gives its own: each would replace the other's at "
                "every iteration and its data would be lost. Give each store its own FilesPath "
                "or FileName");
  config.stores[1].options["FileName"] = "b_It{iteration}_Pr{writer}.h5";
  EXPECT_NE(make_store_collectively(config.stores[0], env), nullptr);
}

}  // namespace
}  // namespace ecluse::test
