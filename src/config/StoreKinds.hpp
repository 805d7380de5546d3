// The store types a <store> may name, with their options as data: the configuration checks
// <option>s against this table and the store layer attaches a factory to each (StoreRegistry).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config/Config.hpp"
#include "config/PluginSpec.hpp"

namespace ecluse {

using StoreKind = PluginSpec;

/** The HDF5 store's FileMode; FilePerProcess is another name for FilePerCore, CollectiveTest
 * (Damaris's test variant of Collective, which writes the same file) for Collective. */
enum class Hdf5FileMode { PerCore, PerNode, Collective };
constexpr std::array<EnumName<Hdf5FileMode>, 5> enum_names(Hdf5FileMode) {
  return {{{Hdf5FileMode::PerCore, "FilePerCore"},
           {Hdf5FileMode::PerCore, "FilePerProcess"},
           {Hdf5FileMode::PerNode, "FilePerNode"},
           {Hdf5FileMode::Collective, "Collective"},
           {Hdf5FileMode::Collective, "CollectiveTest"}}};
}

/** The HDF5 store's default file-name pattern of each FileMode. */
inline constexpr const char* kHdf5PerCorePattern = "{simulation}_It{iteration}_Pr{writer}.h5";
inline constexpr const char* kHdf5PerNodePattern = "{simulation}_It{iteration}_Node{node}.h5";
inline constexpr const char* kHdf5CollectivePattern = "{simulation}_It{iteration}.h5";

/** The HDF5 store's Compression: lossless deflate, or a lossy encoding of floating-point
 * variables (docs/compression.md). */
enum class Hdf5Compression { None, Deflate, Half, Scaled16, Zfp };
constexpr std::array<EnumName<Hdf5Compression>, 5> enum_names(Hdf5Compression) {
  return {{{Hdf5Compression::None, "none"},
           {Hdf5Compression::Deflate, "deflate"},
           {Hdf5Compression::Half, "half"},
           {Hdf5Compression::Scaled16, "scaled16"},
           {Hdf5Compression::Zfp, "zfp"}}};
}

/** What ZfpValue means: an absolute error bound, bits per value, or bit planes kept. */
enum class ZfpMode { Accuracy, Rate, Precision };
constexpr std::array<EnumName<ZfpMode>, 3> enum_names(ZfpMode) {
  return {{{ZfpMode::Accuracy, "accuracy"},
           {ZfpMode::Rate, "rate"},
           {ZfpMode::Precision, "precision"}}};
}

/** An HDF5 store's compression settings, checked. */
struct CompressionSettings {
  Hdf5Compression method = Hdf5Compression::None;
  int level = 6;        // deflate level, 1-9
  bool shuffle = true;  // byte shuffle before deflate
  ZfpMode zfp_mode = ZfpMode::Accuracy;
  double zfp_value = 0;  // accuracy > 0; rate in (0, 64]; precision 1-64
  std::uint64_t chunk_bytes = kDefaultChunkBytes;
  static constexpr std::uint64_t kDefaultChunkBytes = 4u << 20;
};

/** An HDF5 <store>'s options, typed (defaults filled in). */
struct Hdf5StoreOptions {
  Hdf5FileMode mode = Hdf5FileMode::PerCore;
  std::string files_path;
  std::string file_name;       // empty: the default pattern of the mode
  int concurrent_writers = 0;  // 0: every writer at once (no write schedule)
  bool sync = false;           // Sync="yes": fsync each file before it is published
  CompressionSettings compression;
};

/** The largest ConcurrentWriters accepted. */
inline constexpr int kMaxConcurrentWriters = 1000000;
/** ConcurrentWriters as a number, or -1 if it is not one from 0 to kMaxConcurrentWriters. */
int parse_concurrent_writers(const std::string& text);
/** What is wrong with an HDF5 store's ConcurrentWriters (empty: nothing). */
std::string concurrent_writers_problem(const Store& store);
/** What is wrong with an HDF5 store's XDMFMode beside its Compression (empty: nothing): XDMF
 * cannot describe scaled16's per-dataset scale, viewers would show the 16-bit codes. */
std::string xdmf_compression_problem(const Store& store);

/** Every store type known to this build, built or not. */
const std::vector<StoreKind>& store_kinds();
const StoreKind* find_store_kind(std::string_view name);
const OptionSpec* find_option(const StoreKind& kind, const std::string& key);

/** Value of an option, or its declared default. */
std::string option_or_default(const Store& store, const StoreKind& kind, const std::string& key);

/** Checks every option of `store` against its kind's table (the check the reader makes, without
 * line numbers) and throws ECLUSE_CONFIG_ERROR "<where>: store '<name>' of type '<type>': ..."
 * on the first problem: for stores made without the reader. */
void check_store_options(const Store& store, const StoreKind& kind);

/** The typed options of an HDF5 store, checked against the table. */
Hdf5StoreOptions hdf5_options(const Store& store);

/** "<where>: store '<name>' of type '<type>'" for messages about a store. */
std::string store_context(const Store& store);

}  // namespace ecluse
