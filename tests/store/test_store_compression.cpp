// HDF5 store compression: the half and scaled16 codecs, the option checks with their exact
// messages, and every method written by FilePerCore, FilePerNode and Collective stores and read
// back (lossless bit for bit, lossy within the documented bound, integers unchanged).
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <limits>
#include <random>

#include "StoreTestHelpers.hpp"
#include "config/PluginCatalog.hpp"
#include "store/Compression.hpp"
#include "store/CompressionCodecs.hpp"
#include "store/CompressionZfp.hpp"

namespace ecluse::test {
namespace {

using Options = std::map<std::string, std::string>;

// ---- codecs

TEST(CompressionCodecs, HalfRoundTripsEveryHalfValue) {
  for (unsigned bits = 0; bits < 65536; ++bits) {
    const double value = from_half(static_cast<std::uint16_t>(bits));
    if (std::isnan(value)) {
      EXPECT_TRUE(std::isnan(from_half(to_half(value))));
      continue;
    }
    ASSERT_EQ(to_half(value), bits) << value;
  }
}

TEST(CompressionCodecs, HalfRoundsToNearestEvenWithinTheRelativeBound) {
  EXPECT_EQ(to_half(1.0 + 0x1p-11), 0x3c00);      // tie: to the even 1.0
  EXPECT_EQ(to_half(1.0 + 3 * 0x1p-11), 0x3c02);  // tie: to the even 1 + 2^-9
  EXPECT_EQ(to_half(65519.99), 0x7bff);           // 65504, the largest half
  EXPECT_EQ(to_half(65520.0), 0x7c00);            // rounds to infinity
  EXPECT_EQ(to_half(-std::numeric_limits<double>::infinity()), 0xfc00);
  EXPECT_EQ(to_half(0x1p-26), 0x0000);  // below half the smallest subnormal
  EXPECT_EQ(to_half(-0.0), 0x8000);
  EXPECT_EQ(to_half(0x1p-24), 0x0001);
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> exponent(-14, 15.99);
  for (int i = 0; i < 100000; ++i) {
    const double x = std::exp2(exponent(random));
    const double back = from_half(to_half(x));
    ASSERT_LE(std::fabs(back - x), 0x1p-11 * x) << x;
  }
}

TEST(CompressionCodecs, ScaledIsWithinHalfAStepAndMarksNonFinite) {
  FiniteRange seen;
  for (double x : {-3.5, 2.0, std::nan(""), 10.25}) seen.add(x);
  const ScaledRange range = scaled_range(seen);
  EXPECT_EQ(range.offset, -3.5);
  EXPECT_EQ(range.factor, 13.75 / 65534);
  EXPECT_EQ(to_scaled(-3.5, range), 0);
  EXPECT_EQ(to_scaled(10.25, range), 65534);
  EXPECT_EQ(to_scaled(std::numeric_limits<double>::infinity(), range), kScaledNonFinite);
  EXPECT_TRUE(std::isnan(from_scaled(kScaledNonFinite, range)));
  for (int i = 0; i <= 1000; ++i) {
    const double x = -3.5 + 13.75 * i / 1000;
    EXPECT_LE(std::fabs(from_scaled(to_scaled(x, range), range) - x), range.factor / 2 * 1.000001);
  }
  const ScaledRange flat = scaled_range(FiniteRange{4.0, 4.0});
  EXPECT_EQ(from_scaled(to_scaled(4.0, flat), flat), 4.0);
  const double huge = std::numeric_limits<double>::max();
  const ScaledRange wide = scaled_range(FiniteRange{-huge, huge});
  EXPECT_TRUE(std::isfinite(wide.factor));
  EXPECT_EQ(to_scaled(huge, wide), 65534);
  EXPECT_EQ(to_scaled(0.0, wide), 32767);
}

// ---- options

std::string option_error(Options options) {
  Store store = hdf5_store("/tmp", "FilePerCore", std::move(options));
  store.where = {"sim.xml", 12, 5};
  return error_of([&] { (void)hdf5_options(store); }).what();
}

TEST(CompressionOptions, RefusesBadValuesNamingTheStoreAndTheFix) {
  const std::string at = "sim.xml:12:5: store 'h5' of type 'HDF5': ";
  EXPECT_EQ(option_error({{"Compression", "lz4"}}),
            at + "option Compression is 'lz4'; allowed values: none, deflate, half, scaled16, zfp");
  EXPECT_EQ(option_error({{"Compression", "deflate"}, {"CompressionLevel", "12"}}),
            at + "option CompressionLevel is '12'; give an integer from 1 to 9");
  EXPECT_EQ(option_error({{"Compression", "zfp"}}),
            at + "Compression zfp needs the option ZfpValue (the absolute error bound in "
                 "accuracy mode, bits per value in rate mode, bit planes in precision mode)");
  EXPECT_EQ(option_error({{"Compression", "zfp"}, {"ZfpValue", "-1"}}),
            at + "option ZfpValue is '-1'; in accuracy mode give an absolute error bound > 0, "
                 "e.g. 1e-4");
  EXPECT_EQ(option_error({{"Compression", "zfp"}, {"ZfpMode", "precision"}, {"ZfpValue", "2.5"}}),
            at + "option ZfpValue is '2.5'; in precision mode give an integer from 1 to 64, "
                 "e.g. 20");
  EXPECT_EQ(option_error({{"Compression", "zfp"}, {"ZfpMode", "rate"}, {"ZfpValue", "8x"}}),
            at + "option ZfpValue is '8x'; in rate mode give bits per value from 1/64 to 64, "
                 "e.g. 16");
  EXPECT_EQ(option_error({{"ChunkSize", "10"}}),
            at + "option ChunkSize is '10'; give a number of bytes from 1024 to 1073741824, "
                 "e.g. 4194304");
  EXPECT_EQ(option_error({{"Shuffle", "maybe"}}),
            at + "option Shuffle is 'maybe'; allowed values: yes, no");
}

TEST(CompressionOptions, ReadsTheTypedSettings) {
  Store store = hdf5_store("/tmp", "FilePerCore",
                           {{"Compression", "zfp"},
                            {"ZfpMode", "rate"},
                            {"ZfpValue", "12.5"},
                            {"ChunkSize", "65536"},
                            {"Shuffle", "no"}});
  const CompressionSettings s = hdf5_options(store).compression;
  EXPECT_EQ(s.method, Hdf5Compression::Zfp);
  EXPECT_EQ(s.zfp_mode, ZfpMode::Rate);
  EXPECT_EQ(s.zfp_value, 12.5);
  EXPECT_EQ(s.chunk_bytes, 65536u);
  EXPECT_FALSE(s.shuffle);
  EXPECT_EQ(hdf5_options(hdf5_store("/tmp", "FilePerCore")).compression.method,
            Hdf5Compression::None);
}

TEST(CompressionOptions, AreInThePluginListing) {
  const std::string listing = plugin_listing();
  for (const char* line :
       {"    Compression (choice: none | deflate | half | scaled16 | zfp, default none): ",
        "    CompressionLevel (number, default 6): ",
        "    Shuffle (choice: yes | no, default yes): ",
        "    ZfpMode (choice: accuracy | rate | precision, default accuracy): ",
        "    ZfpValue (number): ", "    ChunkSize (number, default 4194304): "}) {
    EXPECT_NE(listing.find(line), std::string::npos) << line << "\n" << listing;
  }
}

// ---- reading back

struct Stored {
  std::vector<std::uint64_t> dims;
  std::vector<double> values;  // converted by HDF5 (half and zfp decoded), codes for scaled16
  std::string compression;
  H5T_class_t type_class = H5T_NO_CLASS;
  std::size_t type_size = 0;
  int filters = 0;
};

Stored read_stored(const std::string& file, const std::string& path) {
  register_zfp_filter();
  Stored out;
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t d = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
  const hid_t space = H5Dget_space(d);
  const hid_t type = H5Dget_type(d);
  const hid_t dcpl = H5Dget_create_plist(d);
  out.filters = H5Pget_nfilters(dcpl);
  out.type_class = H5Tget_class(type);
  out.type_size = H5Tget_size(type);
  std::vector<hsize_t> dims(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)));
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  out.dims.assign(dims.begin(), dims.end());
  out.values.resize(element_count_of(out.dims));
  EXPECT_GE(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.values.data()), 0);
  if (H5Aexists(d, "compression") > 0)
    out.compression = read_string_attribute(file, path, "compression");
  H5Pclose(dcpl);
  H5Tclose(type);
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
  return out;
}

double read_double_attribute(const std::string& file, const std::string& path,
                             const std::string& name) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t a = H5Aopen_by_name(f, path.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
  double value = 0;
  H5Aread(a, H5T_NATIVE_DOUBLE, &value);
  H5Aclose(a);
  H5Fclose(f);
  return value;
}

double smooth(const std::vector<std::uint64_t>& g) {
  return 300.0 + 20.0 * std::sin(0.3 * double(g[0])) * std::cos(0.2 * double(g[1])) +
         1e-3 * double(g[1]);
}

/** Checks the values read back against the originals with the method's bound. */
void expect_within(const std::string& method, const std::vector<double>& original,
                   const Stored& stored, const std::string& file, const std::string& path) {
  ASSERT_EQ(original.size(), stored.values.size());
  double offset = 0;
  double factor = 0;
  if (method == "scaled16") {
    offset = read_double_attribute(file, path, "scale_offset");
    factor = read_double_attribute(file, path, "scale_factor");
    EXPECT_EQ(stored.type_class, H5T_INTEGER);
    EXPECT_EQ(stored.type_size, 2u);
  }
  if (method == "half") {
    EXPECT_EQ(stored.type_class, H5T_FLOAT);
    EXPECT_EQ(stored.type_size, 2u);
  }
  for (std::size_t i = 0; i < original.size(); ++i) {
    const double x = original[i];
    if (method == "none" || method == "deflate") {
      ASSERT_EQ(stored.values[i], x) << path << " at " << i;
    } else if (method == "half") {
      ASSERT_LE(std::fabs(stored.values[i] - x), 0x1p-11 * std::fabs(x)) << path << " at " << i;
    } else if (method == "scaled16") {
      const double back = offset + stored.values[i] * factor;
      ASSERT_LE(std::fabs(back - x), factor / 2 * 1.000001 + 1e-12) << path << " at " << i;
    } else {
      ASSERT_LE(std::fabs(stored.values[i] - x), 1e-3) << path << " at " << i;
    }
  }
}

Options options_of(const std::string& method) {
  Options options = {{"Compression", method}, {"ChunkSize", "2048"}};
  if (method == "zfp") options["ZfpValue"] = "1e-3";
  return options;
}

const std::vector<std::string> kMethods = {"deflate", "half", "scaled16", "zfp"};

// One block of 30 x 17 interior doubles with a ghost ring, one of int32 (stored unchanged by the
// lossy methods), in a FilePerCore file: the chunk size of 2 KiB cuts the block in chunks.
TEST(StoreCompression, FilePerCoreWritesEveryMethodReadableWithinItsBound) {
  for (const std::string& method : kMethods) {
    const std::string dir = fresh_dir("compress_core_" + method);
    auto store =
        make_store_collectively(hdf5_store(dir, "FilePerCore", options_of(method)), world_env());
    const int r = world_rank();
    Variable field = variable("field");
    Variable count = variable("count");
    const Shape s{{32, 19}, {1, 1}, {1, 1}};
    const auto data = fill_block(s, -1e30, smooth);
    const Shape si{{5, 4}};
    const auto ints = fill_block(si, std::int32_t(0), [](const std::vector<std::uint64_t>& g) {
      return std::int32_t(g[0] * 1000 + g[1]) - 7;
    });
    store->write_iteration(1, {block_of(field, data, s, r), block_of(count, ints, si, r)});
    const std::string file = dir + "/sim_It1_Pr" + std::to_string(r) + ".h5";
    const std::string path = "field/P" + std::to_string(r);
    const Stored stored = read_stored(file, path);
    EXPECT_EQ(stored.dims, (std::vector<std::uint64_t>{30, 17}));
    EXPECT_EQ(stored.compression, method);
    EXPECT_EQ(stored.filters, method == "deflate" ? 2 : method == "zfp" ? 1 : 0);
    const std::vector<double> original = fill_block(Shape{{30, 17}}, 0.0, smooth);
    expect_within(method, original, stored, file, path);
    const Stored counted = read_stored(file, "count/P" + std::to_string(r));
    EXPECT_EQ(counted.compression, method == "deflate" ? "deflate" : "none");
    EXPECT_EQ(counted.type_class, H5T_INTEGER);
    EXPECT_EQ(counted.type_size, 4u);
    for (std::size_t i = 0; i < counted.values.size(); ++i) {
      EXPECT_EQ(counted.values[i], double(ints[i]));
    }
  }
}

/** Every element of an unsigned dataset, read in its own type (a double loses 2^64 - 1). */
template <class T>
std::vector<T> read_unsigned(const std::string& file, const std::string& path, hid_t memory) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t d = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
  const hid_t space = H5Dget_space(d);
  std::vector<T> values(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
  EXPECT_GE(H5Dread(d, memory, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
  const hid_t type = H5Dget_type(d);
  EXPECT_EQ(H5Tget_sign(type), H5T_SGN_NONE) << path;
  EXPECT_EQ(H5Tget_size(type), sizeof(T)) << path;
  H5Tclose(type);
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
  return values;
}

// zfp, half and scaled16 compress floating-point data only: unsigned blocks (a mask, counts)
// beside a compressed field are stored unchanged, bit for bit, as signed integers are.
TEST(StoreCompression, UnsignedBlocksAreStoredUnchangedByTheLossyMethods) {
  for (const std::string& method : kMethods) {
    const std::string dir = fresh_dir("compress_unsigned_" + method);
    auto store =
        make_store_collectively(hdf5_store(dir, "FilePerCore", options_of(method)), world_env());
    const int r = world_rank();
    Variable mask = variable("mask");
    Variable ids = variable("ids");
    const Shape s{{40, 30}};
    const auto bits = fill_block(s, std::uint16_t(0), [](const std::vector<std::uint64_t>& g) {
      return std::uint16_t(65535 - g[0] * 30 - g[1]);
    });
    const auto big = fill_block(s, std::uint64_t(0), [](const std::vector<std::uint64_t>& g) {
      return UINT64_MAX - g[0] * 30 - g[1];
    });
    store->write_iteration(1, {block_of(mask, bits, s, r), block_of(ids, big, s, r)});
    const std::string file = dir + "/sim_It1_Pr" + std::to_string(r) + ".h5";
    const std::string tail = "/P" + std::to_string(r);
    EXPECT_EQ(read_unsigned<std::uint16_t>(file, "mask" + tail, H5T_NATIVE_UINT16), bits);
    EXPECT_EQ(read_unsigned<std::uint64_t>(file, "ids" + tail, H5T_NATIVE_UINT64), big);
    EXPECT_EQ(read_stored(file, "mask" + tail).compression,
              method == "deflate" ? "deflate" : "none");
  }
}

// The same rule in one shared file: deflate compresses the unsigned dataset (losslessly), the
// float-only methods leave it unchanged; values above the signed maximum read back bit for bit.
TEST(StoreCompression, CollectiveUnsignedDatasetsAreDeflatedOrStoredUnchanged) {
  for (const std::string& method : kMethods) {
    const std::string dir = fresh_dir("compress_coll_unsigned_" + method);
    auto store =
        make_store_collectively(hdf5_store(dir, "Collective", options_of(method)), world_env());
    const auto r = std::uint64_t(world_rank());
    const auto p = std::uint64_t(world_size());
    Variable ids = variable("ids");
    const auto id = [](const std::vector<std::uint64_t>& g) {
      return std::uint32_t(UINT32_MAX - g[0] * 1000 - g[1]);
    };
    const Shape s{{20, 30}, {}, {}, {std::int64_t(20 * r), 0}, {20 * p, 30}};
    const auto mine = fill_block(s, std::uint32_t(0), [&](const std::vector<std::uint64_t>& g) {
      return id({g[0] + 20 * r, g[1]});
    });
    store->write_iteration(2, {block_of(ids, mine, s, int(r))});
    MPI_Barrier(MPI_COMM_WORLD);
    if (r != 0) continue;
    const std::string file = dir + "/sim_It2.h5";
    EXPECT_EQ(read_unsigned<std::uint32_t>(file, "ids", H5T_NATIVE_UINT32),
              fill_block(Shape{{20 * p, 30}}, std::uint32_t(0), id));
    const Stored stored = read_stored(file, "ids");
    EXPECT_EQ(stored.compression, method == "deflate" ? "deflate" : "none");
    EXPECT_EQ(stored.filters, method == "deflate" ? 2 : 0);
  }
}

// Every rank holds rows of a global 2-D field at its position, with ghosts: one shared file
// whose chunks are the blocks.
TEST(StoreCompression, CollectiveWritesEveryMethodReadableWithinItsBound) {
  for (const std::string& method : kMethods) {
    const std::string dir = fresh_dir("compress_coll_" + method);
    auto store =
        make_store_collectively(hdf5_store(dir, "Collective", options_of(method)), world_env());
    const auto r = std::uint64_t(world_rank());
    const auto p = std::uint64_t(world_size());
    Variable field = variable("field");
    const Shape s{{10, 14}, {1, 1}, {1, 1}, {std::int64_t(8 * r), 0}, {8 * p, 12}};
    const auto data = fill_block(s, -1e30, [&](const std::vector<std::uint64_t>& inner) {
      return smooth({inner[0] + 8 * r, inner[1]});
    });
    store->write_iteration(3, {block_of(field, data, s, int(r))});
    MPI_Barrier(MPI_COMM_WORLD);
    if (r != 0) continue;
    const std::string file = dir + "/sim_It3.h5";
    const Stored stored = read_stored(file, "field");
    EXPECT_EQ(stored.dims, (std::vector<std::uint64_t>{8 * p, 12}));
    EXPECT_EQ(stored.compression, method);
    expect_within(method, fill_block(Shape{{8 * p, 12}}, 0.0, smooth), stored, file, "field");
  }
}

// Rank 0 holds 5 rows, the others 7: the chunks (5 rows, from the first block) straddle the
// blocks of two writers, which parallel HDF5 merges before filtering each chunk once.
TEST(StoreCompression, CollectiveChunksSharedByTwoWritersAreWrittenOnce) {
  for (const std::string& method : {std::string("deflate"), std::string("zfp")}) {
    const std::string dir = fresh_dir("compress_straddle_" + method);
    auto store =
        make_store_collectively(hdf5_store(dir, "Collective", options_of(method)), world_env());
    const auto r = std::uint64_t(world_rank());
    const auto p = std::uint64_t(world_size());
    const std::uint64_t rows = r == 0 ? 5 : 7;
    const std::uint64_t first = r == 0 ? 0 : 5 + 7 * (r - 1);
    const std::uint64_t total = 5 + 7 * (p - 1);
    Variable field = variable("field");
    const Shape s{{rows, 12}, {}, {}, {std::int64_t(first), 0}, {total, 12}};
    const auto data = fill_block(s, 0.0, [&](const std::vector<std::uint64_t>& inner) {
      return smooth({inner[0] + first, inner[1]});
    });
    store->write_iteration(0, {block_of(field, data, s, int(r))});
    MPI_Barrier(MPI_COMM_WORLD);
    if (r != 0) continue;
    const std::string file = dir + "/sim_It0.h5";
    const Stored stored = read_stored(file, "field");
    expect_within(method, fill_block(Shape{{total, 12}}, 0.0, smooth), stored, file, "field");
  }
}

TEST(StoreCompression, FilePerNodeCompressesEveryWritersBlocks) {
  for (const std::string& method : kMethods) {
    const std::string dir = fresh_dir("compress_node_" + method);
    StoreEnv env = world_env();
    env.node_comm = MPI_COMM_WORLD;
    auto store = make_store_collectively(hdf5_store(dir, "FilePerNode", options_of(method)), env);
    const int r = world_rank();
    Variable field = variable("field");
    const Shape s{{12, 9}, {1, 1}, {1, 1}};
    const auto data = fill_block(s, -1e30, smooth);
    store->write_iteration(0, {block_of(field, data, s, r)});
    MPI_Barrier(MPI_COMM_WORLD);
    if (r != 0) continue;
    const std::string file = dir + "/sim_It0_Node0.h5";
    for (int w = 0; w < world_size(); ++w) {
      const std::string path = "field/P" + std::to_string(w);
      const Stored stored = read_stored(file, path);
      EXPECT_EQ(stored.compression, method);
      expect_within(method, fill_block(Shape{{10, 7}}, 0.0, smooth), stored, file, path);
    }
  }
}

TEST(StoreCompression, NonFiniteValuesHalfKeepsScaledMarksZfpLeavesUnchanged) {
  for (const char* method : {"half", "scaled16", "zfp"}) {
    if (world_rank() != 0) return;
    const std::string dir = fresh_dir(std::string("compress_nonfinite_") + method, MPI_COMM_SELF);
    StoreEnv env = world_env();
    env.comm = MPI_COMM_SELF;
    env.writer = 0;
    auto store = make_store(hdf5_store(dir, "FilePerCore", options_of(method)), env);
    Variable v = variable("v");
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<double> data = {1.0, std::nan(""), -inf, inf, 70000.0, -2.0};
    store->write_iteration(0, {block_of(v, data, Shape{{6}})});
    const std::string file = dir + "/sim_It0_Pr0.h5";
    const Stored stored = read_stored(file, "v/P0");
    if (std::string(method) == "zfp") {  // stored unchanged: zfp would lose NaN and Inf
      EXPECT_EQ(stored.compression, "none");
      EXPECT_TRUE(std::isnan(stored.values[1]));
      EXPECT_EQ(stored.values[2], -inf);
      EXPECT_EQ(stored.values[4], 70000.0);
      continue;
    }
    if (std::string(method) == "half") {
      EXPECT_TRUE(std::isnan(stored.values[1]));
      EXPECT_EQ(stored.values[0], 1.0);
      EXPECT_EQ(stored.values[2], -inf);
      EXPECT_EQ(stored.values[3], inf);
      EXPECT_EQ(stored.values[4], inf);  // beyond 65504: overflows to infinity
      continue;
    }
    // Codes: the finite range is [-2, 70000]; every non-finite value is the code 65535.
    EXPECT_EQ(stored.values[0], std::nearbyint(3.0 / (70002.0 / 65534)));
    EXPECT_EQ(stored.values[1], 65535);
    EXPECT_EQ(stored.values[2], 65535);
    EXPECT_EQ(stored.values[3], 65535);
    EXPECT_EQ(stored.values[4], 65534);
    EXPECT_EQ(stored.values[5], 0);
    EXPECT_EQ(read_double_attribute(file, "v/P0", "scale_offset"), -2.0);
    EXPECT_EQ(read_double_attribute(file, "v/P0", "scale_factor"), 70002.0 / 65534);
  }
}

// zfp keeps no NaN or Inf: a block holding one is stored unchanged, bit for bit, rather than
// lose them; the other blocks of the same file are still compressed.
TEST(StoreCompression, ZfpStoresDatasetsWithNonFiniteValuesUnchanged) {
  const std::string dir = fresh_dir("compress_zfp_nonfinite");
  auto store =
      make_store_collectively(hdf5_store(dir, "Collective", options_of("zfp")), world_env());
  const auto r = std::uint64_t(world_rank());
  const auto p = std::uint64_t(world_size());
  Variable holed = variable("holed");
  Variable clean = variable("clean");
  const Shape s{{4, 6}, {}, {}, {std::int64_t(4 * r), 0}, {4 * p, 6}};
  const auto data = fill_block(s, 0.0, [&](const std::vector<std::uint64_t>& inner) {
    return smooth({inner[0] + 4 * r, inner[1]});
  });
  std::vector<double> with_nan = data;
  if (r + 1 == p) with_nan[5] = std::nan("");
  store->write_iteration(0,
                         {block_of(holed, with_nan, s, int(r)), block_of(clean, data, s, int(r))});
  MPI_Barrier(MPI_COMM_WORLD);
  if (r != 0) return;
  const std::string file = dir + "/sim_It0.h5";
  const Stored stored = read_stored(file, "holed");
  EXPECT_EQ(stored.compression, "none");
  EXPECT_EQ(stored.filters, 0);
  std::vector<double> expected = fill_block(Shape{{4 * p, 6}}, 0.0, smooth);
  expected[4 * (p - 1) * 6 + 5] = std::nan("");
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(stored.values[i]));
    } else {
      EXPECT_EQ(stored.values[i], expected[i]) << i;
    }
  }
  EXPECT_EQ(read_stored(file, "clean").compression, "zfp");
}

hsize_t storage_size(const std::string& file, const std::string& path) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t d = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
  const hsize_t size = H5Dget_storage_size(d);
  H5Dclose(d);
  H5Fclose(f);
  return size;
}

// The disk reservation takes stored_bytes_bound for each dataset: on random (incompressible)
// floats the stored datasets stay within it, also where the method expands them (zfp at 64 bits
// per float32 value, zfp's precision mode, deflate).
TEST(StoreCompression, StoredBytesStayWithinTheReservedBound) {
  const std::vector<Options> cases = {
      {{"Compression", "deflate"}},
      {{"Compression", "zfp"}, {"ZfpMode", "rate"}, {"ZfpValue", "64"}},
      {{"Compression", "zfp"}, {"ZfpMode", "precision"}, {"ZfpValue", "64"}},
      {{"Compression", "zfp"}, {"ZfpMode", "accuracy"}, {"ZfpValue", "1e-30"}},
      {{"Compression", "half"}}};
  std::mt19937 random(7);
  std::uniform_real_distribution<float> any(-1e30f, 1e30f);
  std::vector<float> data(64 * 64);
  for (float& x : data) x = any(random);
  const std::uint64_t raw = data.size() * sizeof(float);
  int index = 0;
  for (const Options& options : cases) {
    const std::string dir = fresh_dir("reserve_bound_" + std::to_string(index++));
    auto store = make_store_collectively(hdf5_store(dir, "FilePerCore", options), world_env());
    const int r = world_rank();
    Variable v = variable("x");
    store->write_iteration(0, {block_of(v, data, Shape{{64, 64}}, r)});
    const std::string file = dir + "/sim_It0_Pr" + std::to_string(r) + ".h5";
    const hsize_t stored = storage_size(file, "x/P" + std::to_string(r));
    const std::uint64_t bound = stored_bytes_bound(
        raw, DataType::Float32, hdf5_options(hdf5_store(dir, "FilePerCore", options)).compression);
    EXPECT_LE(stored, bound) << options.at("Compression") << " " << index;
    EXPECT_GT(stored, 0u);
    if (options.count("ZfpMode") && options.at("ZfpMode") == "rate") {
      EXPECT_GE(bound, 2 * raw);  // 64 bits per 32-bit value: twice the raw bytes
      EXPECT_GT(stored, raw);     // the case the old reservation (raw bytes) fell short of
    }
  }
}

}  // namespace
}  // namespace ecluse::test
