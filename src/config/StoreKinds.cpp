// The table of store types and their options, the lookups in it, and the HDF5 options typed.
#include "config/StoreKinds.hpp"

#include <cmath>
#include <exception>

#include "config/Suggest.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {
namespace {

std::vector<OptionSpec> hdf5_option_specs() {
  return {
      {"FileMode",
       "FilePerCore: every writer writes its own file per iteration, one dataset per block, "
       "named <variable>/P<source> (<variable>/P<source>/B<block> with several domains). "
       "FilePerNode: the writers of a node (its dedicated cores, or its ranks in time "
       "partitioning) write one file per node and iteration holding all their blocks, with the "
       "datasets of FilePerCore; a node whose writers have no block writes no file. "
       "Collective: all writers write one shared file per iteration through MPI-IO, one "
       "dataset per variable at its global extent, every block at its position. FilePerProcess "
       "is another name for FilePerCore, CollectiveTest (Damaris's) for Collective.",
       "FilePerCore", names_of_enum<Hdf5FileMode>(), OptionType::Choice},
      {"FilesPath",
       "Directory of the output files, created if missing; a relative path is relative to the "
       "working directory at the time the store is created.",
       ".",
       {},
       OptionType::Path},
      {"FileName",
       "File-name pattern in which {simulation}, {iteration}, {writer} and {node} stand for the "
       "simulation name, the iteration, the writer's rank and its node number; a '/' makes "
       "subdirectories. FilePerCore needs {writer} and FilePerNode {node} when there are "
       "several writers or nodes; {writer} is refused in FilePerNode and Collective, {node} in "
       "Collective, since their writers share a file. The default (empty) depends on FileMode: " +
           std::string(kHdf5PerCorePattern) + " for FilePerCore, " + kHdf5PerNodePattern +
           " for FilePerNode, " + kHdf5CollectivePattern + " for Collective.",
       "",
       {},
       OptionType::Text},
      {"Permissions",
       "Mode of the output files in octal, e.g. 0640 (at most 0777). Empty: 0666 minus the "
       "process's umask, as for any file the program creates.",
       "",
       {},
       OptionType::Text},
      {"Sync",
       "yes: each file is flushed to its storage device (fsync) before it gets its final name, "
       "and its directory after the rename, so a file under its final name survives a crash "
       "of the node; an iteration counts as stored only then, and a failed fsync is a failed "
       "store (ECLUSE_IO_ERROR, counted in the run report). Output then goes at the device's "
       "speed rather than the page cache's: with dedicated cores or nodes the servers' store "
       "thread waits for it, not the simulation (docs/hdf5-store.md). no: the operating system "
       "writes the files back when it chooses, as HDF5, Damaris and ADIOS2 do by default. "
       "XDMF descriptions are not flushed.",
       "no",
       {"yes", "no"},
       OptionType::Choice},
      {"XDMFMode",
       "XDMF 2 description of the HDF5 output, for ParaView and VisIt (docs/xdmf.md). "
       "EveryIteration: after each iteration's files are published, the first writer writes "
       "<FilesPath>/<simulation>_It<iteration>.xmf (every variable on its rectilinear mesh, or "
       "on a structured grid from its layout; every block of the per-core and per-node files) "
       "and updates the temporal collection <FilesPath>/<simulation>.xmf (temporary file, then "
       "rename; at each of its first 100 steps, then when it grew by a tenth or 30 s passed, "
       "and at the end). FirstIteration: the same for the first iteration written only. "
       "NoIteration: no "
       "XDMF file.",
       "NoIteration",
       {"NoIteration", "FirstIteration", "EveryIteration"},
       OptionType::Choice},
      {"ConcurrentWriters",
       "At most this many writers (FilePerCore) or nodes (FilePerNode) write at once; the "
       "others wait for their turn, ordered from each one's write time of the previous "
       "iteration (docs/scheduling.md). 0: all at once. Not for Collective, which is one "
       "coordinated write already.",
       "0",
       {},
       OptionType::Number},
      {"Compression",
       "none; deflate: lossless, chunked datasets (CompressionLevel, Shuffle); half: floats "
       "stored as IEEE binary16 (relative error <= 2^-11); scaled16: floats stored as 16-bit "
       "integers with the dataset attributes scale_offset and scale_factor (absolute error <= "
       "(max-min)/65534/2); zfp: the zfp filter of H5Z-ZFP (id 32013, read by hdf5plugin) with "
       "ZfpMode and ZfpValue. Lossy methods store integer and string variables unchanged. "
       "Runs where the store runs: on the servers with dedicated cores or nodes "
       "(docs/compression.md).",
       "none", names_of_enum<Hdf5Compression>(), OptionType::Choice},
      {"CompressionLevel",
       "Deflate level, 1 (fastest) to 9 (smallest).",
       "6",
       {},
       OptionType::Number},
      {"Shuffle",
       "yes: shuffle the bytes of each value before deflate (better ratios on "
       "floating-point data).",
       "yes",
       {"yes", "no"},
       OptionType::Choice},
      {"ZfpMode",
       "accuracy: ZfpValue is the absolute error bound; rate: bits per value (0 < rate <= 64); "
       "precision: bit planes kept (1-64).",
       "accuracy", names_of_enum<ZfpMode>(), OptionType::Choice},
      {"ZfpValue",
       "The value of ZfpMode; required with Compression zfp.",
       "",
       {},
       OptionType::Number},
      {"ChunkSize",
       "Largest chunk in bytes of a compressed dataset (1024 to 1073741824): a block is one "
       "chunk, cut along its slowest dimensions when larger.",
       std::to_string(CompressionSettings::kDefaultChunkBytes),
       {},
       OptionType::Number},
  };
}

std::vector<StoreKind> build_kinds() {
  return {
      {"HDF5",
       "HDF5 files as Damaris writes them: one file per writer and iteration (FilePerCore), one "
       "per node and iteration (FilePerNode) or one shared file per iteration (Collective). A "
       "file appears under its final name only once completely written.",
       hdf5_option_specs(), ""},
      {"null",
       "Writes nothing: blocks reach the store and are dropped, to measure Ecluse's own cost.",
       {},
       ""},
  };
}

}  // namespace

const std::vector<StoreKind>& store_kinds() {
  static const std::vector<StoreKind> kinds = build_kinds();
  return kinds;
}

const StoreKind* find_store_kind(std::string_view name) {
  return find_plugin(store_kinds(), name);
}

const OptionSpec* find_option(const StoreKind& kind, const std::string& key) {
  return kind.option(key);
}

std::string option_or_default(const Store& store, const StoreKind& kind, const std::string& key) {
  return option_or_default(kind, store.options, key);
}

std::string store_context(const Store& store) {
  const std::string at = store.where.file.empty() ? "" : to_string(store.where) + ": ";
  return at + "store '" + store.name + "' of type '" + store.type + "'";
}

void check_store_options(const Store& store, const StoreKind& kind) {
  for (const auto& [key, value] : store.options) {
    const OptionCheck check = check_option(kind, key, value);
    const std::string at = store_context(store) + ": ";
    if (check.status == OptionCheck::Status::UnknownKey) {
      throw Error(ECLUSE_CONFIG_ERROR,
                  at + "unknown option '" + key + "'; " +
                      (check.known.empty() ? "this store type takes no options"
                                           : "known options: " + join(check.known)));
    }
    if (check.status == OptionCheck::Status::BadValue) {
      throw Error(ECLUSE_CONFIG_ERROR, at + "option " + key + " is '" + value +
                                           "'; allowed values: " + join(check.known));
    }
  }
}

namespace {

[[noreturn]] void bad_compression_option(const Store& store, const std::string& key,
                                         const std::string& value, const std::string& fix) {
  throw Error(ECLUSE_CONFIG_ERROR,
              store_context(store) + ": option " + key + " is '" + value + "'; " + fix);
}

// The whole text must be a finite number: "1e-3", not "1e-3x" nor "nan".
bool parse_number(const std::string& text, double& value) {
  std::size_t used = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    return false;
  }
  return used == text.size() && std::isfinite(value);
}

double number_in(const Store& store, const StoreKind& kind, const std::string& key, double low,
                 double high, bool integer, const std::string& fix) {
  const std::string text = option_or_default(store, kind, key);
  double value = 0;
  const bool ok = parse_number(text, value) && value >= low && value <= high &&
                  (!integer || value == std::floor(value));
  if (!ok) bad_compression_option(store, key, text, fix);
  return value;
}

double zfp_value(const Store& store, const StoreKind& kind, ZfpMode mode) {
  if (option_or_default(store, kind, "ZfpValue").empty()) {
    throw Error(ECLUSE_CONFIG_ERROR,
                store_context(store) +
                    ": Compression zfp needs the option ZfpValue (the absolute error bound in "
                    "accuracy mode, bits per value in rate mode, bit planes in precision mode)");
  }
  if (mode == ZfpMode::Rate) {
    return number_in(store, kind, "ZfpValue", 1.0 / 64, 64, false,
                     "in rate mode give bits per value from 1/64 to 64, e.g. 16");
  }
  if (mode == ZfpMode::Precision) {
    return number_in(store, kind, "ZfpValue", 1, 64, true,
                     "in precision mode give an integer from 1 to 64, e.g. 20");
  }
  const double accuracy = number_in(store, kind, "ZfpValue", 0, 1e300, false,
                                    "in accuracy mode give an absolute error bound > 0, e.g. 1e-4");
  if (accuracy <= 0) {
    bad_compression_option(store, "ZfpValue", option_or_default(store, kind, "ZfpValue"),
                           "in accuracy mode give an absolute error bound > 0, e.g. 1e-4");
  }
  return accuracy;
}

template <class E>
E enum_option(const Store& store, const StoreKind& kind, const std::string& key) {
  const std::string text = option_or_default(store, kind, key);
  for (const auto& entry : enum_names(E{})) {
    if (entry.name == text) return entry.value;
  }
  return E{};  // unreachable: check_store_options accepted the value
}

CompressionSettings compression_settings(const Store& store, const StoreKind& kind) {
  CompressionSettings settings;
  settings.method = enum_option<Hdf5Compression>(store, kind, "Compression");
  settings.level = static_cast<int>(
      number_in(store, kind, "CompressionLevel", 1, 9, true, "give an integer from 1 to 9"));
  settings.shuffle = option_or_default(store, kind, "Shuffle") == "yes";
  settings.zfp_mode = enum_option<ZfpMode>(store, kind, "ZfpMode");
  if (settings.method == Hdf5Compression::Zfp) {
    settings.zfp_value = zfp_value(store, kind, settings.zfp_mode);
  }
  settings.chunk_bytes = static_cast<std::uint64_t>(
      number_in(store, kind, "ChunkSize", 1024, 1u << 30, true,
                "give a number of bytes from 1024 to 1073741824, e.g. 4194304"));
  return settings;
}

}  // namespace

Hdf5StoreOptions hdf5_options(const Store& store) {
  const StoreKind& kind = *find_store_kind("HDF5");
  check_store_options(store, kind);
  Hdf5StoreOptions options;
  const std::string mode = option_or_default(store, kind, "FileMode");
  for (const auto& entry : enum_names(Hdf5FileMode{})) {
    if (entry.name == mode) options.mode = entry.value;
  }
  options.files_path = option_or_default(store, kind, "FilesPath");
  options.file_name = option_or_default(store, kind, "FileName");
  if (const std::string problem = concurrent_writers_problem(store); !problem.empty()) {
    throw Error(ECLUSE_CONFIG_ERROR, store_context(store) + ": " + problem);
  }
  options.concurrent_writers =
      parse_concurrent_writers(option_or_default(store, kind, "ConcurrentWriters"));
  options.compression = compression_settings(store, kind);
  options.sync = option_or_default(store, kind, "Sync") == "yes";
  return options;
}

int parse_concurrent_writers(const std::string& text) {
  const bool digits = !text.empty() && text.size() <= 7 &&
                      text.find_first_not_of("0123456789") == std::string::npos;
  const int writers = digits ? std::stoi(text) : -1;
  return writers <= kMaxConcurrentWriters ? writers : -1;
}

std::string xdmf_compression_problem(const Store& store) {
  const auto xdmf = store.options.find("XDMFMode");
  const auto compression = store.options.find("Compression");
  if (xdmf == store.options.end() || xdmf->second == "NoIteration") return {};
  if (compression == store.options.end() || compression->second != "scaled16") return {};
  return "store '" + store.name + "' has XDMFMode=" + xdmf->second +
         " and Compression=scaled16: XDMF cannot describe scaled16's 16-bit codes and their "
         "per-dataset scale, so viewers would show the codes, not the values. Use "
         "Compression=half or zfp with XDMF, or XDMFMode=NoIteration.";
}

std::string concurrent_writers_problem(const Store& store) {
  const auto it = store.options.find("ConcurrentWriters");
  if (it == store.options.end()) return {};
  if (parse_concurrent_writers(it->second) < 0) {
    return "option ConcurrentWriters of store '" + store.name + "' is '" + it->second +
           "'; give a whole number of writers from 0 (all at once, the default) to " +
           std::to_string(kMaxConcurrentWriters) + ".";
  }
  const auto mode = store.options.find("FileMode");
  bool collective = false;
  for (const auto& entry : enum_names(Hdf5FileMode{})) {
    if (mode != store.options.end() && entry.name == mode->second) {
      collective = entry.value == Hdf5FileMode::Collective;
    }
  }
  if (collective && parse_concurrent_writers(it->second) > 0) {
    return "option ConcurrentWriters of store '" + store.name +
           "' applies to FilePerCore and FilePerNode; a Collective store is already one "
           "coordinated write of all writers. Remove the option or choose another FileMode.";
  }
  return {};
}

}  // namespace ecluse
