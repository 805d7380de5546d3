// The store registry: types, options as data, option checks, BlockData::interior, null store.
#include <gtest/gtest.h>

#include <filesystem>

#include "StoreTestHelpers.hpp"
#include "store/NullStore.hpp"

namespace ecluse::test {
namespace {

const OptionSpec& option(const StoreKind& kind, const std::string& key) {
  for (const OptionSpec& spec : kind.options) {
    if (spec.key == key) return spec;
  }
  throw std::runtime_error("no option " + key);
}

TEST(StoreRegistry, ListsHdf5AndNull) {
  ASSERT_EQ(store_kinds().size(), 2u);
  EXPECT_EQ(store_kinds()[0].name, "HDF5");
  EXPECT_EQ(store_kinds()[1].name, "null");
  for (const StoreKind& kind : store_kinds()) {
    EXPECT_TRUE(kind.not_built.empty()) << kind.name;
    EXPECT_FALSE(kind.description.empty()) << kind.name;
    EXPECT_TRUE(store_registry().find(kind)->make) << kind.name;
    for (const OptionSpec& spec : kind.options) EXPECT_FALSE(spec.description.empty()) << spec.key;
  }
  EXPECT_EQ(find_store_kind("HDF5"), &store_kinds()[0]);
  EXPECT_EQ(find_store_kind("null"), &store_kinds()[1]);
  EXPECT_EQ(find_store_kind("hdf5"), nullptr);
  EXPECT_EQ(find_store_kind("ADIOS2"), nullptr);
}

TEST(StoreRegistry, Hdf5OptionsAndDefaults) {
  const StoreKind& kind = *find_store_kind("HDF5");
  ASSERT_EQ(kind.options.size(), 13u);  // 6 of compression: test_store_compression.cpp
  EXPECT_EQ(option(kind, "Permissions").default_value, "");
  EXPECT_EQ(option(kind, "Sync").default_value, "no");
  EXPECT_EQ(option(kind, "Sync").allowed, (std::vector<std::string>{"yes", "no"}));
  EXPECT_EQ(option(kind, "FileMode").default_value, "FilePerCore");
  EXPECT_EQ(option(kind, "FileMode").allowed,
            (std::vector<std::string>{"FilePerCore", "FilePerProcess", "FilePerNode", "Collective",
                                      "CollectiveTest"}));
  EXPECT_EQ(option(kind, "FilesPath").default_value, ".");
  EXPECT_TRUE(option(kind, "FilesPath").allowed.empty());
  const OptionSpec& name = option(kind, "FileName");
  EXPECT_EQ(name.default_value, "");
  EXPECT_NE(name.description.find("{simulation}_It{iteration}_Pr{writer}.h5 for FilePerCore"),
            std::string::npos);
  EXPECT_NE(name.description.find("{simulation}_It{iteration}_Node{node}.h5 for FilePerNode"),
            std::string::npos);
  EXPECT_NE(name.description.find("{simulation}_It{iteration}.h5 for Collective"),
            std::string::npos);
  const OptionSpec& xdmf = option(kind, "XDMFMode");
  EXPECT_EQ(xdmf.allowed,
            (std::vector<std::string>{"NoIteration", "FirstIteration", "EveryIteration"}));
  EXPECT_NE(xdmf.description.find("<FilesPath>/<simulation>.xmf"), std::string::npos);
  EXPECT_TRUE(find_store_kind("null")->options.empty());
}

TEST(StoreRegistry, OptionOrDefault) {
  const StoreKind& kind = *find_store_kind("HDF5");
  Store store{"s", "HDF5", {{"FileMode", "Collective"}}, {}};
  EXPECT_EQ(option_or_default(store, kind, "FileMode"), "Collective");
  EXPECT_EQ(option_or_default(store, kind, "FilesPath"), ".");
  EXPECT_EQ(option_or_default(store, kind, "FileName"), "");
  EXPECT_THROW(option_or_default(store, kind, "Nope"), Error);
}

Error make_error(const Store& store) {
  return error_of([&] { make_store(store, world_env()); });
}

TEST(StoreRegistry, RejectsBadOptionsWithLocation) {
  Store store{"out", "HDF5", {{"FileMode", "PerNode"}}, {"sim.xml", 12, 5}};
  Error e = make_error(store);
  EXPECT_EQ(e.status(), ECLUSE_CONFIG_ERROR);
  EXPECT_STREQ(e.what(),
               "sim.xml:12:5: store 'out' of type 'HDF5': option FileMode is 'PerNode'; allowed "
               "values: FilePerCore, FilePerProcess, FilePerNode, Collective, CollectiveTest");
  store.options = {{"FilePath", "x"}};
  EXPECT_STREQ(make_error(store).what(),
               "sim.xml:12:5: store 'out' of type 'HDF5': unknown option 'FilePath'; known "
               "options: FileMode, FilesPath, FileName, Permissions, Sync, XDMFMode, "
               "ConcurrentWriters, Compression, CompressionLevel, Shuffle, ZfpMode, ZfpValue, "
               "ChunkSize");
  store.options = {{"XDMFMode", "Always"}};
  EXPECT_STREQ(make_error(store).what(),
               "sim.xml:12:5: store 'out' of type 'HDF5': option XDMFMode is 'Always'; allowed "
               "values: NoIteration, FirstIteration, EveryIteration");
  Store null{"n", "null", {{"FileMode", "Collective"}}, {}};
  EXPECT_STREQ(make_error(null).what(),
               "store 'n' of type 'null': unknown option 'FileMode'; this store type takes no "
               "options");
}

TEST(StoreRegistry, ChecksFileNamePlaceholders) {
  Store store{"out", "HDF5", {{"FileName", "{sim}_{iteration}.h5"}}, {}};
  EXPECT_STREQ(make_error(store).what(),
               "store 'out' of type 'HDF5': FileName '{sim}_{iteration}.h5' has an unknown "
               "placeholder '{sim}'; use {simulation}, {iteration}, {writer}, {node}");
  store.options = {{"FileMode", "Collective"}, {"FileName", "{simulation}_{writer}.h5"}};
  EXPECT_STREQ(make_error(store).what(),
               "store 'out' of type 'HDF5': FileName '{simulation}_{writer}.h5' uses {writer}, "
               "but in Collective mode all writers share one file");
  store.options = {{"FileMode", "Collective"}, {"FileName", "{simulation}_{node}.h5"}};
  EXPECT_STREQ(make_error(store).what(),
               "store 'out' of type 'HDF5': FileName '{simulation}_{node}.h5' uses {node}, "
               "but in Collective mode all writers share one file");
  store.options = {{"FileMode", "FilePerNode"}, {"FileName", "{node}_{writer}.h5"}};
  EXPECT_STREQ(make_error(store).what(),
               "store 'out' of type 'HDF5': FileName '{node}_{writer}.h5' uses {writer}, but in "
               "FilePerNode mode the writers of a node share one file");
  store.options = {{"FileName", "x_{iteration"}};
  EXPECT_EQ(make_error(store).status(), ECLUSE_CONFIG_ERROR);
  store.options = {{"FileMode", "FilePerProcess"}, {"FileName", "{simulation}.h5"}};
  EXPECT_NO_THROW(make_store(store, world_env()));  // one writer: {writer} not needed
  store.options = {{"FileMode", "FilePerNode"}, {"FileName", "{simulation}.h5"}};
  EXPECT_NO_THROW(make_store(store, world_env()));  // one node: {node} not needed
  store.options = {{"FileName", "n{node}/{simulation}_{writer}.h5"}};
  EXPECT_NO_THROW(make_store(store, world_env()));  // {node} allowed in FilePerCore
}

TEST(StoreRegistry, InteriorStripsGhosts) {
  BlockData block;
  block.dims = {6, 5, 4};
  EXPECT_EQ(block.interior(), (std::vector<std::uint64_t>{6, 5, 4}));
  block.ghost_lo = {1, 0, 2};
  block.ghost_hi = {2, 1, 0};
  EXPECT_EQ(block.interior(), (std::vector<std::uint64_t>{3, 4, 2}));
  block.ghost_hi = {2, 1, 3};
  Variable v = variable("rho");
  block.variable = &v;
  Error e = error_of([&] { (void)block.interior(); });
  EXPECT_EQ(e.status(), ECLUSE_INVALID_DIMENSIONS);
  EXPECT_STREQ(e.what(),
               "block 0 of variable 'rho' from source 0 has 5 ghost cells in dimension 2 of "
               "extent 4");
  block.ghost_hi = {1};
  EXPECT_EQ(error_of([&] { (void)block.interior(); }).status(), ECLUSE_INVALID_DIMENSIONS);
}

TEST(StoreRegistry, NullStoreWritesNothing) {
  const std::string dir = fresh_dir("null");
  std::filesystem::current_path(dir);
  auto store = make_store(Store{"n", "null", {}, {}}, world_env());
  Variable v = variable("x");
  std::vector<double> data(8, 1.0);
  store->write_iteration(0, {block_of(v, data, {{8}})});
  EXPECT_EQ(dynamic_cast<NullStore&>(*store).blocks_received(), 1u);
  EXPECT_TRUE(no_output(dir));
  std::filesystem::current_path(dir + "/..");
}

TEST(StoreRegistry, RelativeFilesPathIsCreatedUnderWorkingDirectory) {
  const std::string dir = fresh_dir("relative");
  std::filesystem::current_path(dir);
  auto store = make_store(Store{"h5", "HDF5", {{"FilesPath", "out/deep"}}, {}}, world_env());
  std::filesystem::current_path(dir + "/..");  // resolved when the store was made
  Variable v = variable("x");
  std::vector<std::int32_t> data = {1, 2, 3};
  store->write_iteration(4, {block_of(v, data, {{3}})});
  const std::string file = dir + "/out/deep/sim_It4_Pr0.h5";
  EXPECT_EQ(read_dataset(file, "x/P0").bytes, as_bytes(data));
}

TEST(StoreRegistry, FileNamesStayInTheStoreDirectory) {
  Store store{"out", "HDF5", {{"FileName", "../{simulation}_{writer}.h5"}}, {}};
  EXPECT_STREQ(make_error(store).what(),
               "store 'out' of type 'HDF5': FileName '../{simulation}_{writer}.h5' would leave "
               "the store's directory (FilesPath); use a relative pattern without '..', and "
               "FilesPath to choose the directory");
  store.options = {{"FileName", "/tmp/{simulation}_{writer}.h5"}};
  EXPECT_EQ(make_error(store).status(), ECLUSE_CONFIG_ERROR);
  store.options = {{"FileName", "a/../../{simulation}_{writer}.h5"}};
  EXPECT_EQ(make_error(store).status(), ECLUSE_CONFIG_ERROR);
}

TEST(StoreRegistry, OutputRootConfinesFilesPath) {
  const std::string dir = fresh_dir("output_root");
  std::filesystem::create_directories(dir + "/root");
  setenv("ECLUSE_OUTPUT_ROOT", (dir + "/root").c_str(), 1);
  Store store{"out", "HDF5", {{"FilesPath", dir + "/root/../elsewhere"}}, {}};
  EXPECT_EQ(std::string(make_error(store).what()),
            "store 'out' of type 'HDF5': FilesPath '" + dir +
                "/elsewhere' is outside ECLUSE_OUTPUT_ROOT='" + dir + "/root' (resolved '" + dir +
                "/elsewhere'); choose a directory under it");
  std::filesystem::create_directory_symlink(dir, dir + "/root/link");
  store.options = {{"FilesPath", dir + "/root/link/escaped"}};
  EXPECT_EQ(make_error(store).status(), ECLUSE_CONFIG_ERROR);  // symbolic links resolved
  store.options = {{"FilesPath", dir + "/root/run1"}};
  EXPECT_NO_THROW(make_store(store, world_env()));
  unsetenv("ECLUSE_OUTPUT_ROOT");
}

// A directory of FileName that is a symbolic link leading out of FilesPath: the iteration is not
// written there, it fails (ECLUSE_IO_ERROR, a store failure the report counts); a link that
// stays inside is followed.
TEST(StoreRegistry, ALinkInFileNameDoesNotLeadOutOfFilesPath) {
  const std::string dir = fresh_dir("file_name_link");
  std::filesystem::create_directories(dir + "/out/inner");
  std::filesystem::create_directories(dir + "/escape");
  std::filesystem::create_directory_symlink(dir + "/escape", dir + "/out/link");
  std::filesystem::create_directory_symlink(dir + "/out/inner", dir + "/out/inside");
  Store store{
      "out", "HDF5", {{"FilesPath", dir + "/out"}, {"FileName", "link/{iteration}.h5"}}, {}};
  auto escaping = make_store(store, world_env());
  Variable v = variable("x");
  std::vector<std::int32_t> data = {1, 2, 3};
  const auto refused = error_of([&] { escaping->write_iteration(4, {block_of(v, data, {{3}})}); });
  EXPECT_EQ(refused.status(), ECLUSE_IO_ERROR);
  EXPECT_EQ(std::string(refused.what()),
            "store 'out' would write '" + dir + "/out/link/4.h5' outside its FilesPath '" + dir +
                "/out': its directory resolves to '" + dir +
                "/escape' (a symbolic link on the way leads out). Fix: remove the link, or "
                "write a FileName without it");
  EXPECT_TRUE(std::filesystem::is_empty(dir + "/escape"));
  store.options = {{"FilesPath", dir + "/out"}, {"FileName", "inside/{iteration}.h5"}};
  auto inside = make_store(store, world_env());
  inside->write_iteration(4, {block_of(v, data, {{3}})});
  EXPECT_EQ(read_dataset(dir + "/out/inner/4.h5", "x/P0").bytes, as_bytes(data));
}

TEST(StoreRegistry, PermissionsOfThePublishedFiles) {
  const std::string dir = fresh_dir("permissions");
  Store store{"out", "HDF5", {{"FilesPath", dir}, {"Permissions", "0999"}}, {}};
  EXPECT_STREQ(make_error(store).what(),
               "store 'out' of type 'HDF5': option Permissions is '0999'; give an octal mode "
               "from 0 to 0777, e.g. 0640");
  store.options["Permissions"] = "0640";
  auto made = make_store(store, world_env());
  Variable v = variable("x");
  const std::vector<std::int32_t> data = {1, 2, 3};
  made->write_iteration(0, {block_of(v, data, {{3}})});
  const auto perms = std::filesystem::status(dir + "/sim_It0_Pr0.h5").permissions();
  EXPECT_EQ(static_cast<int>(perms), 0640);
}

}  // namespace
}  // namespace ecluse::test
