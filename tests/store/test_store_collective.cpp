// HDF5 store, Collective mode: every rank fills its block with values that encode the global
// index, so rank 0 can check the whole assembled dataset bit for bit.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "StoreTestHelpers.hpp"

namespace ecluse::test {
namespace {

std::string file_of(const std::string& dir, int iteration) {
  return dir + "/sim_It" + std::to_string(iteration) + ".h5";
}

/** Local data of a block whose interior element at `inner` has global index position + inner. */
template <class T, class F>
std::vector<T> encoded_block(const Shape& shape, F&& value_at_global) {
  return fill_block(shape, T(-7), [&](const std::vector<std::uint64_t>& inner) {
    std::vector<std::uint64_t> global(inner.size());
    for (std::size_t d = 0; d < inner.size(); ++d) {
      global[d] = std::uint64_t(shape.position[d]) + inner[d];
    }
    return value_at_global(global);
  });
}

template <class T, class F>
std::vector<T> encoded_dataset(const std::vector<std::uint64_t>& extent, F&& value_at_global) {
  std::vector<T> values;
  for_each_index(
      extent, [&](const std::vector<std::uint64_t>& g) { values.push_back(value_at_global(g)); });
  return values;
}

double value2d(const std::vector<std::uint64_t>& g) {
  return double(g[0] * 100 + g[1]) + 0.5;
}
std::int32_t value3d(const std::vector<std::uint64_t>& g) {
  return std::int32_t(g[0] * 10000 + g[1] * 100 + g[2]);
}
std::int64_t value1d(const std::vector<std::uint64_t>& g) {
  return std::int64_t(g[0] * 7);
}

/** A store's environment whose warnings go to <dir>/log.<rank>.log, with `config` (the dialect). */
class LoggedEnv {
 public:
  explicit LoggedEnv(const std::string& dir, const Config* config = nullptr)
      : log_(log_config(dir), world_rank()) {
    env.log = &log_;
    env.config = config;
  }
  StoreEnv env = world_env();

 private:
  static LogConfig log_config(const std::string& dir) {
    LogConfig c;
    c.file = dir + "/log";
    return c;
  }
  Log log_;
};

/** The refusal of a variable whose blocks without a position would overwrite each other. */
std::string overwrite_message(const std::string& variable, int unpositioned, int total) {
  return "store 'h5': variable '" + variable + "': " + std::to_string(unpositioned) + " of its " +
         std::to_string(total) +
         " blocks have no position and would overwrite each other at the origin. Fix: call "
         "ecluse_set_position (or ecluse_set_block_position) for every block before writing it";
}

TEST(StoreCollective, AssemblesDeclaredGlobalDatasetsFromAllRanks) {
  const std::string dir = fresh_dir("coll_declared");
  auto store = make_store_collectively(hdf5_store(dir, "Collective"), world_env());
  const auto r = std::uint64_t(world_rank());
  const auto p = std::uint64_t(world_size());
  Variable field = variable("field", "K");
  Variable cube = variable("mesh/cube");
  // Rows of 3 per rank, with one ghost cell on every side that must not reach the file.
  const Shape s2{{5, 6}, {1, 1}, {1, 1}, {std::int64_t(3 * r), 0}, {3 * p, 4}};
  const Shape s3{{2, 2, 3}, {}, {}, {0, std::int64_t(2 * r), 0}, {2, 2 * p, 3}};
  const auto d2 = encoded_block<double>(s2, value2d);
  const auto d3 = encoded_block<std::int32_t>(s3, value3d);
  store->write_iteration(2, {block_of(field, d2, s2, int(r)), block_of(cube, d3, s3, int(r))});
  MPI_Barrier(MPI_COMM_WORLD);
  if (r != 0) return;
  const std::string file = file_of(dir, 2);
  const Dataset f = read_dataset(file, "field");
  EXPECT_EQ(f.dims, (std::vector<std::uint64_t>{3 * p, 4}));
  EXPECT_EQ(f.bytes, as_bytes(encoded_dataset<double>(f.dims, value2d)));
  const Dataset c = read_dataset(file, "mesh/cube");
  EXPECT_EQ(c.dims, (std::vector<std::uint64_t>{2, 2 * p, 3}));
  EXPECT_EQ(c.bytes, as_bytes(encoded_dataset<std::int32_t>(c.dims, value3d)));
  EXPECT_TRUE(files_ending_with(dir, ".part").empty());
}

TEST(StoreCollective, ComputesGlobalExtentFromUnevenBlocks) {
  const std::string dir = fresh_dir("coll_computed");
  auto store = make_store_collectively(hdf5_store(dir, "Collective"), world_env(2));
  const int r = world_rank();
  const auto p = std::uint64_t(world_size());
  Variable temp = variable("grid/temp");
  Variable solo = variable("solo");
  // Rank 0 holds two blocks, the others one: writers make different numbers of block writes.
  std::vector<Shape> shapes = {{{5}, {}, {}, {5 * r}}};
  if (r == 0) shapes.push_back({{7}, {1}, {1}, {std::int64_t(5 * p)}});
  std::vector<std::vector<std::int64_t>> data;
  for (const Shape& s : shapes) data.push_back(encoded_block<std::int64_t>(s, value1d));
  std::vector<BlockData> blocks;
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    blocks.push_back(block_of(temp, data[k], shapes[k], r, int(k)));
  }
  const std::vector<std::int8_t> solo_data = {1, 2, 3, 4};
  if (r == world_size() - 1) blocks.push_back(block_of(solo, solo_data, {{4}, {}, {}, {2}}, r));
  store->write_iteration(0, blocks);
  MPI_Barrier(MPI_COMM_WORLD);
  if (r != 0) return;
  const Dataset t = read_dataset(file_of(dir, 0), "grid/temp");
  EXPECT_EQ(t.dims, std::vector<std::uint64_t>{5 * p + 5});
  EXPECT_EQ(t.bytes, as_bytes(encoded_dataset<std::int64_t>(t.dims, value1d)));
  const Dataset s = read_dataset(file_of(dir, 0), "solo");
  EXPECT_EQ(s.dims, std::vector<std::uint64_t>{6});
  // Cells no block covers are left unwritten: holes of a new file, zeros.
  EXPECT_EQ(s.bytes, as_bytes(std::vector<std::int8_t>{0, 0, 1, 2, 3, 4}));
}

TEST(StoreCollective, WritesUnitsAndFileAttributes) {
  const std::string dir = fresh_dir("coll_attributes");
  auto store = make_store_collectively(hdf5_store(dir, "Collective"), world_env());
  Variable v = variable("rho", "kg/m3");
  Variable w = variable("group/bare");
  const std::vector<float> data = {1, 2};
  const std::int64_t r = world_rank();
  store->write_iteration(
      5, {block_of(v, data, {{2}, {}, {}, {2 * r}}, 0), block_of(w, data, {{2}, {}, {}, {2 * r}})});
  MPI_Barrier(MPI_COMM_WORLD);
  if (r != 0) return;
  const std::string file = file_of(dir, 5);
  EXPECT_EQ(read_string_attribute(file, "rho", "units"), "kg/m3");
  EXPECT_EQ(read_string_attribute(file, "group/bare", "units"), "");
  EXPECT_EQ(read_string_attribute(file, "/", "simulation"), "sim");
  EXPECT_EQ(read_int_attribute(file, "/", "iteration"), std::vector<std::int64_t>{5});
  EXPECT_FALSE(read_string_attribute(file, "/", "ecluse_version").empty());
  EXPECT_THROW(read_int_attribute(file, "/", "writer"), std::runtime_error);
}

TEST(StoreCollective, VariablesInDifferentLocalOrders) {
  const std::string dir = fresh_dir("coll_order");
  auto store = make_store_collectively(hdf5_store(dir, "Collective"), world_env());
  Variable a = variable("a");
  Variable b = variable("b");
  const std::int64_t r = world_rank();
  const std::vector<double> da = {double(r)};
  const std::vector<double> db = {double(-r)};
  const BlockData ba = block_of(a, da, {{1}, {}, {}, {r}}, int(r));
  const BlockData bb = block_of(b, db, {{1}, {}, {}, {r}}, int(r));
  store->write_iteration(
      1, r % 2 == 0 ? std::vector<BlockData>{ba, bb} : std::vector<BlockData>{bb, ba});
  MPI_Barrier(MPI_COMM_WORLD);
  if (r != 0) return;
  std::vector<double> ea;
  std::vector<double> eb;
  for (int k = 0; k < world_size(); ++k) {
    ea.push_back(k);
    eb.push_back(-k);
  }
  EXPECT_EQ(read_dataset(file_of(dir, 1), "a").bytes, as_bytes(ea));
  EXPECT_EQ(read_dataset(file_of(dir, 1), "b").bytes, as_bytes(eb));
}

TEST(StoreCollective, NoBlocksAnywhereWritesNoFile) {
  const std::string dir = fresh_dir("coll_empty");
  auto store = make_store_collectively(hdf5_store(dir, "Collective"), world_env());
  store->write_iteration(0, {});
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_TRUE(no_output(dir));
}

TEST(StoreCollective, BlockOutsideDeclaredExtentFailsOnEveryRank) {
  const std::string dir = fresh_dir("coll_outside");
  auto store = make_store_collectively(hdf5_store(dir, "Collective"), world_env());
  const int r = world_rank();
  const int last = world_size() - 1;
  Variable v = variable("field");
  const std::vector<double> data(12, 1.0);
  const std::int64_t row = r == last ? 3 * r + 1 : 3 * r;  // the last block overflows by one
  const Shape shape{{3, 4}, {}, {}, {row, 0}, {3 * std::uint64_t(world_size()), 4}};
  Error e = error_of([&] { store->write_iteration(0, {block_of(v, data, shape, r, 0)}); });
  EXPECT_EQ(e.status(), ECLUSE_DATASPACE_ERROR);
  const std::string n = std::to_string(3 * world_size());
  EXPECT_EQ(std::string(e.what()),
            "store 'h5': block 0 of variable 'field' from source " + std::to_string(last) +
                " at position (" + std::to_string(3 * last + 1) +
                ", 0) with interior extent (3, 4) lies outside the global extent (" + n +
                ", 4). Fix: check the positions given to ecluse_set_position and the layout's "
                "global dimensions");
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_TRUE(no_output(dir));
}

/** A Damaris file declaring `variable` on layout `layout` (its global= as given). */
Config damaris_config(const std::string& name, const std::vector<std::string>& global,
                      bool fortran) {
  Config config;
  config.dialect = Dialect::Damaris;
  Layout layout;
  layout.name = "grid";
  layout.fortran = fortran;
  for (const std::string& g : global) layout.global.push_back(Expression::parse(g));
  config.layouts.push_back(layout);
  Variable v = variable(name);
  v.layout = "grid";
  config.variables.push_back(v);
  config.index_names();
  return config;
}

TEST(StoreCollective, BlockOutsideAGlobalExtentOfParametersNamesThemInDamarisNames) {
  // A Fortran layout global="2 * NX, NY" is (NY, 2 * NX) in C order; the last block passes the
  // end of NY's dimension only, so NY is named with the value its client gave it.
  const std::string dir = fresh_dir("coll_outside_parameters");
  const Config config = damaris_config("field", {"2 * NX", "NY"}, true);
  StoreEnv env = world_env();
  env.config = &config;
  auto store = make_store_collectively(hdf5_store(dir, "Collective"), env);
  const int r = world_rank();
  const int last = world_size() - 1;
  const Variable& v = config.variables.front();
  const std::vector<double> data(12, 1.0);
  const std::int64_t row = r == last ? 3 * r + 1 : 3 * r;
  const std::uint64_t ny = 3 * std::uint64_t(world_size());
  const Shape shape{{3, 4}, {}, {}, {row, 0}, {ny, 4}};
  Error e = error_of([&] { store->write_iteration(0, {block_of(v, data, shape, r, 0)}); });
  EXPECT_EQ(e.status(), ECLUSE_DATASPACE_ERROR);
  EXPECT_EQ(std::string(e.what()),
            "store 'h5': block 0 of variable 'field' from source " + std::to_string(last) +
                " at position (" + std::to_string(3 * last + 1) +
                ", 0) with interior extent (3, 4) lies outside the global extent (" +
                std::to_string(ny) +
                ", 4) (in C order, as the file holds them: its language=\"fortran\" layout's "
                "dimensions and positions reversed). The global extent comes from parameter "
                "NY = " +
                std::to_string(ny) +
                " as that client evaluated it: was it set with damaris_parameter_set on every "
                "client before the writes? Fix: check the positions given to "
                "damaris_set_position and the layout's global dimensions");
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_TRUE(no_output(dir));
}

TEST(StoreCollective, BlocksDisagreeingOnTheGlobalExtentNameBothAndTheLikelyCauses) {
  // The last writer's second block comes with a global extent one larger (a client out of step,
  // or NP set differently): refused on every writer, naming both blocks and the iteration.
  const std::string dir = fresh_dir("coll_global_differs");
  const Config config = damaris_config("id", {"2 * NP"}, false);
  StoreEnv env = world_env(2);
  env.config = &config;
  auto store = make_store_collectively(hdf5_store(dir, "Collective"), env);
  const int r = world_rank();
  const int last = world_size() - 1;
  const Variable& v = config.variables.front();
  const std::vector<std::int32_t> data = {r};
  const std::uint64_t n = 2 * std::uint64_t(world_size());
  std::vector<BlockData> blocks = {block_of(v, data, {{1}, {}, {}, {2 * r}, {n}}, r, 0)};
  if (r == last) blocks.push_back(block_of(v, data, {{1}, {}, {}, {2 * r + 1}, {n + 1}}, r, 1));
  Error e = error_of([&] { store->write_iteration(2, blocks); });
  EXPECT_EQ(e.status(), ECLUSE_DATASPACE_ERROR);
  const std::string source = " from source " + std::to_string(last);
  EXPECT_EQ(std::string(e.what()),
            "store 'h5': variable 'id' at iteration 2: block 1" + source + " has global extent (" +
                std::to_string(n + 1) + "), block 0" + source + " has global extent (" +
                std::to_string(n) +
                "); the blocks of one iteration must agree on them. Likely causes: a client out "
                "of step (one that skipped one damaris_end_iteration sends its next iteration's "
                "blocks as this one's), or a global dimension set differently on different "
                "clients (its layout's global extent comes from parameter NP). Fix: call "
                "damaris_end_iteration once per iteration on every client, and give every "
                "client the same global dimensions (damaris_parameter_set with the same values "
                "on all of them, before the writes)");
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_TRUE(no_output(dir));
}

TEST(StoreCollective, WritersDisagreeingOnTheGlobalExtentNameTheirBlocks) {
  if (world_size() == 1) GTEST_SKIP() << "needs two writers";
  const std::string dir = fresh_dir("coll_global_writers");
  auto store = make_store_collectively(hdf5_store(dir, "Collective"), world_env());
  const int r = world_rank();
  const int last = world_size() - 1;
  Variable v = variable("id");
  const std::vector<std::int32_t> data = {r};
  const std::uint64_t n = std::uint64_t(world_size()) + (r == last ? 1 : 0);
  Error e = error_of([&] {
    store->write_iteration(1, {block_of(v, data, {{1}, {}, {}, {r}, {n}}, r)});
  });
  EXPECT_EQ(e.status(), ECLUSE_DATASPACE_ERROR);
  EXPECT_EQ(std::string(e.what()),
            "store 'h5': variable 'id' at iteration 1: block 0 from source " +
                std::to_string(last) + " has global extent (" + std::to_string(world_size() + 1) +
                "), block 0 from source 0 has global extent (" + std::to_string(world_size()) +
                "); the blocks of one iteration must agree on them. Likely causes: a client out "
                "of step (one that skipped one ecluse_end_iteration sends its next iteration's "
                "blocks as this one's), or a global dimension set differently on different "
                "clients. Fix: call ecluse_end_iteration once per iteration on every client, "
                "and give every client the same global dimensions (ecluse_parameter_set with "
                "the same values on all of them, before the writes)");
}

TEST(StoreCollective, WritersDisagreeingOnTypeFailTogether) {
  if (world_size() == 1) GTEST_SKIP() << "needs two writers";
  const std::string dir = fresh_dir("coll_types");
  auto store = make_store_collectively(hdf5_store(dir, "Collective"), world_env());
  const std::int64_t r = world_rank();
  Variable v = variable("x");
  const std::vector<float> f = {1};
  const std::vector<double> d = {1};
  const Shape shape{{1}, {}, {}, {r}};
  Error e = error_of(
      [&] { store->write_iteration(0, {r == 0 ? block_of(v, f, shape) : block_of(v, d, shape)}); });
  EXPECT_EQ(e.status(), ECLUSE_DATASPACE_ERROR);
  EXPECT_STREQ(e.what(),
               "store 'h5': variable 'x' has blocks of different types (float and double)");
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_TRUE(no_output(dir));
}

TEST(StoreCollective, BlocksWithoutPositionFromSeveralWritersAreRefused) {
  if (world_size() == 1) GTEST_SKIP() << "needs two writers";
  const std::string dir = fresh_dir("coll_unpositioned");
  auto store = make_store_collectively(hdf5_store(dir, "Collective"), world_env());
  Variable v = variable("field");
  const std::vector<double> data(4, 1.0);
  const int r = world_rank();
  // Rank 0 gave a position; the others never called ecluse_set_position.
  const Shape shape{
      {4}, {}, {}, r == 0 ? std::vector<std::int64_t>{0} : std::vector<std::int64_t>{}};
  Error e = error_of([&] { store->write_iteration(0, {block_of(v, data, shape, r)}); });
  EXPECT_EQ(e.status(), ECLUSE_DATASPACE_ERROR);
  EXPECT_EQ(std::string(e.what()), overwrite_message("field", world_size() - 1, world_size()));
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_TRUE(no_output(dir));
}

TEST(StoreCollective, OneBlockWithoutPositionIsAtTheOrigin) {
  const std::string dir = fresh_dir("coll_one_unpositioned");
  auto store = make_store_collectively(hdf5_store(dir, "Collective"), world_env());
  Variable v = variable("field");
  const std::vector<std::int32_t> data = {4, 5, 6};
  std::vector<BlockData> blocks;
  if (world_rank() == 0) blocks.push_back(block_of(v, data, {{3}, {}, {}, {}, {3}}));
  store->write_iteration(0, blocks);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  EXPECT_EQ(read_dataset(file_of(dir, 0), "field").bytes, as_bytes(data));
}

TEST(StoreCollective, OverlappingBlocksAreRefused) {
  if (world_size() == 1) GTEST_SKIP() << "needs two writers";
  const std::string dir = fresh_dir("coll_overlap");
  auto store = make_store_collectively(hdf5_store(dir, "Collective"), world_env());
  Variable v = variable("field");
  const std::vector<double> data(4, 1.0);
  // Every block at row 0 of a dataset declared one block tall: they all overlap.
  const Shape shape{{1, 4}, {}, {}, {0, 0}, {1, 4}};
  Error e = error_of([&] { store->write_iteration(0, {block_of(v, data, shape, world_rank())}); });
  EXPECT_EQ(e.status(), ECLUSE_DATASPACE_ERROR);
  const std::string n = std::to_string(world_size());
  const std::string cells = std::to_string(4 * world_size());
  EXPECT_EQ(std::string(e.what()),
            "store 'h5': variable 'field': its " + n + " blocks hold " + cells +
                " interior cells for a dataset of 4 (1, 4), so some overlap. Fix: check the "
                "positions given to ecluse_set_position");
}

TEST(StoreCollective, IdenticalWholeArraysWithoutPositionAreWrittenOnce) {
  // Damaris programs often have every client write its copy of a coordinate array.
  const std::string dir = fresh_dir("coll_replicas");
  LoggedEnv logged(dir);
  auto store = make_store_collectively(hdf5_store(dir + "/out", "Collective"), logged.env);
  Variable x = variable("coord/x");
  const std::vector<float> coords = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f};
  for (int it = 0; it < 2; ++it) {
    store->write_iteration(it, {block_of(x, coords, {{5}, {}, {}, {}, {5}}, world_rank())});
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  EXPECT_EQ(read_dataset(dir + "/out/sim_It1.h5", "coord/x").bytes, as_bytes(coords));
  if (world_size() == 1) return;  // one block is not a replica
  EXPECT_EQ(read_text(dir + "/log.0.log"),
            "[ecluse 0] warning: store 'h5': variable 'coord/x': at iteration 0 its " +
                std::to_string(world_size()) +
                " blocks have no position and hold the same bytes (every client wrote the "
                "whole array): written once. If they are pieces of a larger array that only "
                "happen to be equal, set each one's position (ecluse_set_position): at an "
                "iteration where they differ they are refused (one dataset per block in a "
                "Damaris file) (said once per variable)\n");
}

TEST(StoreCollective, DifferentWholeArraysWithoutPositionAreRefused) {
  if (world_size() == 1) GTEST_SKIP() << "needs two writers";
  const std::string dir = fresh_dir("coll_replicas_differ");
  auto store = make_store_collectively(hdf5_store(dir, "Collective"), world_env());
  Variable x = variable("coord/x");
  const std::vector<double> mine(3, double(world_rank()));
  Error e = error_of([&] {
    store->write_iteration(0, {block_of(x, mine, {{3}, {}, {}, {}, {3}}, world_rank())});
  });
  EXPECT_EQ(e.status(), ECLUSE_DATASPACE_ERROR);
  EXPECT_EQ(std::string(e.what()), overwrite_message("coord/x", world_size(), world_size()));
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_TRUE(no_output(dir));
}

TEST(StoreCollective, BlocksWithoutPositionOfADamarisFileAreWrittenOneDatasetEach) {
  // OPM Flow's mesh coordinates: each rank its own vertices, no position. Damaris would write
  // them over each other at the origin; each gets its own dataset, named as FilePerCore.
  if (world_size() == 1) GTEST_SKIP() << "needs two writers";
  const std::string dir = fresh_dir("coll_damaris_pieces");
  Config damaris;
  damaris.dialect = Dialect::Damaris;
  LoggedEnv logged(dir, &damaris);
  auto store = make_store_collectively(hdf5_store(dir + "/out", "Collective"), logged.env);
  Variable x = variable("coordset/x");
  Variable p = variable("p");  // positioned: one dataset, as before
  const int r = world_rank();
  std::vector<double> mine;
  for (int i = 0; i < r + 2; ++i) mine.push_back(10.0 * r + i);
  const std::vector<double> pressure(2, double(r));
  for (int iteration = 0; iteration < 2; ++iteration) {
    store->write_iteration(iteration,
                           {block_of(x, mine, {{std::uint64_t(r + 2)}}, r),
                            block_of(p, pressure, {{2}, {}, {}, {2 * std::int64_t(r)}}, r)});
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (r != 0) return;
  std::vector<double> all;
  for (int k = 0; k < world_size(); ++k) {
    std::vector<double> expected;
    for (int i = 0; i < k + 2; ++i) expected.push_back(10.0 * k + i);
    EXPECT_EQ(read_dataset(dir + "/out/sim_It1.h5", "coordset/x/P" + std::to_string(k)).bytes,
              as_bytes(expected));
    all.insert(all.end(), 2, double(k));
  }
  EXPECT_EQ(read_dataset(dir + "/out/sim_It1.h5", "p").bytes, as_bytes(all));
  EXPECT_EQ(read_text(dir + "/log.0.log"),
            "[ecluse 0] warning: store 'h5': variable 'coordset/x': at iteration 0 its " +
                std::to_string(world_size()) +
                " blocks have no position and are not copies of one array, so they cannot share "
                "one dataset (Damaris would write them over each other): written one dataset "
                "per block, 'coordset/x/P<source>', uncompressed, as FilePerCore names them. "
                "Fix: set a position for every block (damaris_set_position) to get one dataset "
                "(said once per variable)\n");
}

TEST(StoreCollective, SelectFilePlacesEachElementAtItsIndexWithGhostsAndTwoDomains) {
  // Two blocks per writer, each 3 interior cells between one ghost on each side; the index
  // variable (long, with the same ghosts) deals the global cells round-robin over the blocks, so
  // no block holds two neighbours. Written at iteration 0, it still places iteration 1.
  const std::string dir = fresh_dir("coll_select_file");
  auto store = make_store_collectively(hdf5_store(dir, "Collective"), world_env(2));
  const int r = world_rank();
  const auto blocks = std::uint64_t(2 * world_size());
  Variable index = variable("GLOBAL_CELL_INDEX");
  Variable field = variable("PRESSURE");
  field.select_file = "GLOBAL_CELL_INDEX";
  std::vector<BlockData> indices, fields;
  std::vector<std::vector<std::int64_t>> index_data(2);
  std::vector<std::vector<double>> field_data(2);
  for (int b = 0; b < 2; ++b) {
    const std::uint64_t mine = std::uint64_t(2 * r + b);
    index_data[b] = {-1, -1, -1, -1, -1};
    field_data[b] = {-7, -7, -7, -7, -7};
    for (std::uint64_t k = 0; k < 3; ++k) {
      const std::uint64_t cell = k * blocks + mine;
      index_data[b][k + 1] = std::int64_t(cell);
      field_data[b][k + 1] = double(cell) + 0.25;
    }
    const Shape shape{{5}, {1}, {1}, {std::int64_t(3 * mine)}, {3 * blocks}};
    indices.push_back(block_of(index, index_data[b], shape, r, b));
    fields.push_back(block_of(field, field_data[b], shape, r, b, 1));
  }
  store->take_indices(indices);
  store->write_iteration(1, fields);
  MPI_Barrier(MPI_COMM_WORLD);
  if (r != 0) return;
  std::vector<double> expected;
  for (std::uint64_t cell = 0; cell < 3 * blocks; ++cell) expected.push_back(double(cell) + 0.25);
  EXPECT_EQ(read_dataset(file_of(dir, 1), "PRESSURE").bytes, as_bytes(expected));
}

TEST(StoreCollective, SelectFileWritesRunsOfAnIndexInTheirOrder) {
  // Each writer's 8 cells are two runs of 4, given second half first: written as hyperslabs,
  // the values still land at their indices.
  const std::string dir = fresh_dir("coll_select_runs");
  auto store = make_store_collectively(hdf5_store(dir, "Collective"), world_env());
  const int r = world_rank();
  const auto n = std::uint64_t(8 * world_size());
  Variable index = variable("I");
  Variable field = variable("F");
  field.select_file = "I";
  std::vector<std::int32_t> cells;
  std::vector<double> values;
  for (int k = 0; k < 8; ++k) {
    const int cell = 8 * r + (k + 4) % 8;
    cells.push_back(cell);
    values.push_back(1000.0 + cell);
  }
  const Shape shape{{8}, {}, {}, {8 * std::int64_t(r)}, {n}};
  store->take_indices({block_of(index, cells, shape, r)});
  store->write_iteration(0, {block_of(field, values, shape, r)});
  MPI_Barrier(MPI_COMM_WORLD);
  if (r != 0) return;
  std::vector<double> expected;
  for (std::uint64_t cell = 0; cell < n; ++cell) expected.push_back(1000.0 + double(cell));
  EXPECT_EQ(read_dataset(file_of(dir, 0), "F").bytes, as_bytes(expected));
}

// An index may be unsigned (uint32 here), and the field it places too: each writer's cells in
// reverse order, holding values above the int16 maximum.
TEST(StoreCollective, SelectFileTakesAnUnsignedIndexForAnUnsignedField) {
  const std::string dir = fresh_dir("coll_select_unsigned");
  auto store = make_store_collectively(hdf5_store(dir, "Collective"), world_env());
  const int r = world_rank();
  const auto n = std::uint64_t(6 * world_size());
  Variable index = variable("I");
  Variable field = variable("M");
  field.select_file = "I";
  std::vector<std::uint32_t> cells;
  std::vector<std::uint16_t> values;
  for (std::uint32_t k = 0; k < 6; ++k) {
    const std::uint32_t cell = 6 * std::uint32_t(r) + 5 - k;
    cells.push_back(cell);
    values.push_back(std::uint16_t(65535 - cell));
  }
  const Shape shape{{6}, {}, {}, {6 * std::int64_t(r)}, {n}};
  store->take_indices({block_of(index, cells, shape, r)});
  store->write_iteration(0, {block_of(field, values, shape, r)});
  MPI_Barrier(MPI_COMM_WORLD);
  if (r != 0) return;
  std::vector<std::uint16_t> expected;
  for (std::uint64_t cell = 0; cell < n; ++cell) expected.push_back(std::uint16_t(65535 - cell));
  EXPECT_EQ(read_dataset(file_of(dir, 0), "M").bytes, as_bytes(expected));
}

TEST(StoreCollective, SelectFileWithAnIndexOutsideTheDatasetRefusesTheVariable) {
  const std::string dir = fresh_dir("coll_select_outside");
  auto store = make_store_collectively(hdf5_store(dir, "Collective"), world_env());
  const int r = world_rank();
  Variable index = variable("I");
  Variable field = variable("P");
  field.select_file = "I";
  const std::int64_t n = world_size();
  const std::vector<std::int32_t> cell = {r == 0 ? std::int32_t(n) : std::int32_t(r)};
  const std::vector<double> value = {1.0};
  const Shape shape{{1}, {}, {}, {r}, {std::uint64_t(n)}};
  store->take_indices({block_of(index, cell, shape, r)});
  Error e = error_of([&] { store->write_iteration(0, {block_of(field, value, shape, r)}); });
  EXPECT_EQ(e.status(), ECLUSE_DATASPACE_ERROR);
  EXPECT_EQ(std::string(e.what()),
            "store 'h5': block 0 of variable 'P' from source 0: element 0 has index " +
                std::to_string(n) + " in 'I', outside the dataset (" + std::to_string(n) +
                "). Fix: the values of 'I' must lie in 0..global size - 1 (the layout's global "
                "dimension)");
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_TRUE(no_output(dir));
}

// OPM Flow's mistake: n_elements_total never set (the file's value="1"): the index is right, the
// dataset too small; the message names the parameter with the value the client gave it.
TEST(StoreCollective, SelectFileIndexOutsideADatasetSizedByAParameterNamesIt) {
  const std::string dir = fresh_dir("coll_select_outside_parameter");
  Config config = damaris_config("PRESSURE", {"n_elements_total"}, false);
  config.variables.front().select_file = "GLOBAL_CELL_INDEX";
  StoreEnv env = world_env();
  env.config = &config;
  auto store = make_store_collectively(hdf5_store(dir, "Collective"), env);
  const int r = world_rank();
  Variable index = variable("GLOBAL_CELL_INDEX");
  const std::vector<std::int32_t> cell = {std::int32_t(2 * r + 1)};
  const std::vector<double> value = {1.0};
  const Shape shape{{1}, {}, {}, {r}, {1}};
  store->take_indices({block_of(index, cell, shape, r)});
  const Variable& field = config.variables.front();
  Error e = error_of([&] { store->write_iteration(0, {block_of(field, value, shape, r)}); });
  EXPECT_EQ(e.status(), ECLUSE_DATASPACE_ERROR);
  EXPECT_EQ(std::string(e.what()),
            "store 'h5': block 0 of variable 'PRESSURE' from source 0: element 0 has index 1 in "
            "'GLOBAL_CELL_INDEX', outside the dataset (1). The global extent comes from "
            "parameter n_elements_total = 1 as that client evaluated it: was it set with "
            "damaris_parameter_set on every client before the writes? Fix: the values of "
            "'GLOBAL_CELL_INDEX' must lie in 0..global size - 1 (the layout's global dimension)");
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_TRUE(no_output(dir));
}

TEST(StoreCollective, ARefusedVariableLeavesTheOthersWritten) {
  if (world_size() == 1) GTEST_SKIP() << "needs two writers";
  const std::string dir = fresh_dir("coll_partial");
  auto store = make_store_collectively(hdf5_store(dir, "Collective"), world_env());
  const std::int64_t r = world_rank();
  Variable field = variable("field");
  Variable edge = variable("edge");
  const std::vector<std::int64_t> row = {r, r, r};
  const std::vector<double> cells(4, 1.0);
  // field tiles its dataset; every block of edge claims row 0 of a one-row dataset.
  const Shape tiled{{1, 3}, {}, {}, {r, 0}, {std::uint64_t(world_size()), 3}};
  const Shape overlapping{{1, 4}, {}, {}, {0, 0}, {1, 4}};
  Error e = error_of([&] {
    store->write_iteration(
        3, {block_of(field, row, tiled, int(r)), block_of(edge, cells, overlapping, int(r))});
  });
  EXPECT_EQ(e.status(), ECLUSE_DATASPACE_ERROR);
  const std::string n = std::to_string(world_size());
  EXPECT_EQ(std::string(e.what()),
            "store 'h5': variable 'edge': its " + n + " blocks hold " +
                std::to_string(4 * world_size()) +
                " interior cells for a dataset of 4 (1, 4), so some overlap. Fix: check the "
                "positions given to ecluse_set_position (the iteration's file holds its 1 other "
                "variable(s); left out: edge)");
  MPI_Barrier(MPI_COMM_WORLD);
  if (r != 0) return;
  std::vector<std::int64_t> expected;
  for (int k = 0; k < world_size(); ++k) expected.insert(expected.end(), 3, k);
  EXPECT_EQ(read_dataset(file_of(dir, 3), "field").bytes, as_bytes(expected));
  EXPECT_THROW(read_dataset(file_of(dir, 3), "edge"), std::runtime_error);
}

TEST(StoreCollective, OverlappingBlocksOfADamarisFileAreWrittenWithAWarning) {
  if (world_size() == 1) GTEST_SKIP() << "needs two writers";
  const std::string dir = fresh_dir("coll_damaris_overlap");
  Config damaris;
  damaris.dialect = Dialect::Damaris;
  LoggedEnv logged(dir, &damaris);
  auto store = make_store_collectively(hdf5_store(dir + "/out", "Collective"), logged.env);
  Variable z = variable("coord/z");
  // Blocks of 3 cells sharing their boundary cell (value = global index), as Damaris's
  // mandelbulb example writes its z coordinates.
  const std::int64_t r = world_rank();
  const std::vector<double> mine = {double(2 * r), double(2 * r + 1), double(2 * r + 2)};
  const std::uint64_t n = 2 * std::uint64_t(world_size()) + 1;
  store->write_iteration(0, {block_of(z, mine, {{3}, {}, {}, {2 * r}, {n}}, int(r))});
  MPI_Barrier(MPI_COMM_WORLD);
  if (r != 0) return;
  std::vector<double> expected;
  for (std::uint64_t i = 0; i < n; ++i) expected.push_back(double(i));
  EXPECT_EQ(read_dataset(dir + "/out/sim_It0.h5", "coord/z").bytes, as_bytes(expected));
  EXPECT_EQ(read_text(dir + "/log.0.log"),
            "[ecluse 0] warning: store 'h5': variable 'coord/z': at iteration 0 its " +
                std::to_string(world_size()) + " blocks hold " + std::to_string(3 * world_size()) +
                " interior cells for a dataset of " + std::to_string(n) + " (" + std::to_string(n) +
                "), so some overlap; as Damaris does (a Damaris file), every block is written "
                "and a cell written twice keeps one of its values. Fix: ghosts= for the shared "
                "cells, or positions that tile the dataset (said once per variable)\n");
}

TEST(StoreCollective, CellsLeftUnwrittenAreWarnedAboutOnceAndCountedInEveryFile) {
  const std::string dir = fresh_dir("coll_uncovered");
  LoggedEnv logged(dir);
  auto store = make_store_collectively(hdf5_store(dir + "/out", "Collective"), logged.env);
  Variable v = variable("field");
  Variable whole = variable("whole");
  const std::vector<double> data(3, 2.0);
  const std::int64_t r = world_rank();
  // Blocks of 3 cells in a dataset declared 3 * ranks + 1 long: one cell is never written.
  const Shape shape{{3}, {}, {}, {3 * r}, {3 * std::uint64_t(world_size()) + 1}};
  const Shape tiled{{3}, {}, {}, {3 * r}, {3 * std::uint64_t(world_size())}};
  for (int it = 0; it < 2; ++it) {
    store->write_iteration(it, {block_of(v, data, shape, int(r)), block_of(whole, data, tiled)});
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (r != 0) return;
  const std::string cells = std::to_string(3 * world_size() + 1);
  EXPECT_EQ(read_text(dir + "/log.0.log"),
            "[ecluse 0] warning: store 'h5': variable 'field': at iteration 0 its blocks cover " +
                std::to_string(3 * world_size()) + " of the " + cells + " cells of (" + cells +
                "); 1 cells are left unwritten (read back as 0; the dataset's attribute "
                "ecluse_unwritten_cells counts them at every iteration). Fix: make the blocks' "
                "positions and sizes tile the global dimensions (said once per variable)\n");
  // Said once, marked in every file: a reader tells the partial dataset from a whole one.
  for (int it = 0; it < 2; ++it) {
    const std::string file = dir + "/out/sim_It" + std::to_string(it) + ".h5";
    EXPECT_EQ(read_int_attribute(file, "field", "ecluse_unwritten_cells"),
              std::vector<std::int64_t>{1});
    EXPECT_THROW(read_int_attribute(file, "whole", "ecluse_unwritten_cells"), std::runtime_error);
  }
}

/** The warning for select-file= indices that are no permutation of the dataset's cells. */
std::string index_warning(int iteration, std::uint64_t named, std::uint64_t cells,
                          const std::string& problems) {
  return "[ecluse 0] warning: store 'h5': variable 'P': at iteration " + std::to_string(iteration) +
         " its blocks are placed by the indices in 'I' " + "(select-file=), which name " +
         std::to_string(named) + " distinct cells of the " + std::to_string(cells) + " of (" +
         std::to_string(cells) + "): " + problems +
         ". Fix: give every cell of the dataset exactly one index over all the clients (said "
         "once per variable)\n";
}

TEST(StoreCollective, SelectFileIndicesNamingACellTwiceAndOneByNoneAreWarnedAboutOnce) {
  // Writer r names cells 2r and 2r + 1, except writer 0, which names cell 0 twice: cell 1 is
  // named by none. Counts alone (2n cells named for 2n) would not show it.
  const std::string dir = fresh_dir("coll_select_repeats");
  LoggedEnv logged(dir);
  auto store = make_store_collectively(hdf5_store(dir + "/out", "Collective"), logged.env);
  const int r = world_rank();
  const auto cells = std::uint64_t(2 * world_size());
  Variable index = variable("I");
  Variable field = variable("P");
  field.select_file = "I";
  const std::vector<std::int64_t> named = {2 * r, r == 0 ? 0 : 2 * r + 1};
  const std::vector<double> values = {10.0 + 2 * r, 11.0 + 2 * r};
  const Shape shape{{2}, {}, {}, {2 * r}, {cells}};
  store->take_indices({block_of(index, named, shape, r)});
  for (int it = 0; it < 2; ++it) store->write_iteration(it, {block_of(field, values, shape, r)});
  MPI_Barrier(MPI_COMM_WORLD);
  if (r != 0) return;
  EXPECT_EQ(read_text(dir + "/log.0.log"),
            index_warning(0, cells - 1, cells,
                          "1 cells are named more than once (a cell named twice keeps one of its "
                          "values); 1 cells are named by none (read back as 0)"));
  const auto bytes = read_dataset(dir + "/out/sim_It1.h5", "P").bytes;
  std::vector<double> back(cells);
  std::memcpy(back.data(), bytes.data(), bytes.size());
  EXPECT_TRUE(back[0] == 10.0 || back[0] == 11.0) << back[0];
  EXPECT_EQ(back[1], 0.0);
  // The exact count (cells named by none), also at iteration 1, where the index was not new.
  for (int it = 0; it < 2; ++it) {
    EXPECT_EQ(read_int_attribute(dir + "/out/sim_It" + std::to_string(it) + ".h5", "P",
                                 "ecluse_unwritten_cells"),
              std::vector<std::int64_t>{1});
  }
  for (std::uint64_t cell = 2; cell < cells; ++cell) EXPECT_EQ(back[cell], 10.0 + double(cell));
}

TEST(StoreCollective, SelectFileIndicesAreCheckedAgainWhenTheyChange) {
  // Iteration 0: writer r names cells n - 1 - r (a permutation: no warning, and no estimate
  // from the block sizes either). Iteration 1: the same index again, then one that names cell
  // 0 on every writer, so the n - 1 others by none.
  const std::string dir = fresh_dir("coll_select_changed");
  LoggedEnv logged(dir);
  auto store = make_store_collectively(hdf5_store(dir + "/out", "Collective"), logged.env);
  const int r = world_rank();
  const auto n = std::uint64_t(world_size());
  Variable index = variable("I");
  Variable field = variable("P");
  field.select_file = "I";
  const Shape shape{{1}, {}, {}, {r}, {n}};
  const std::vector<double> value = {1.5 + r};
  const std::vector<std::int32_t> permuted = {std::int32_t(n) - 1 - r};
  for (int it = 0; it < 2; ++it) {
    store->take_indices({block_of(index, permuted, shape, r)});
    store->write_iteration(it, {block_of(field, value, shape, r)});
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (r == 0) {
    EXPECT_EQ(read_text(dir + "/log.0.log"), "");
  }
  const std::vector<std::int32_t> first = {0};
  store->take_indices({block_of(index, first, shape, r)});
  store->write_iteration(2, {block_of(field, value, shape, r)});
  MPI_Barrier(MPI_COMM_WORLD);
  if (r != 0) return;
  std::vector<double> expected;
  for (std::uint64_t cell = 0; cell < n; ++cell) expected.push_back(1.5 + double(n - 1 - cell));
  EXPECT_EQ(read_dataset(dir + "/out/sim_It1.h5", "P").bytes, as_bytes(expected));
  if (n == 1) return;  // one writer: cell 0 is the whole dataset, named once
  EXPECT_EQ(read_text(dir + "/log.0.log"),
            index_warning(2, 1, n,
                          std::to_string(n - 1) +
                              " cells are named more than once (a cell named twice keeps one of "
                              "its values); " +
                              std::to_string(n - 1) + " cells are named by none (read back as 0)"));
}

}  // namespace
}  // namespace ecluse::test
