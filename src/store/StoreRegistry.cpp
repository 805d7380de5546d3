// The table of store types with their options as data, and the checks of a <store> element
// against it; also BlockData::interior, the one computation every store needs.
#include <algorithm>
#include <filesystem>
#include <utility>

#include "ecluse/Error.hpp"
#include "store/Hdf5CollectiveStore.hpp"
#include "store/Hdf5FilePerProcessStore.hpp"
#include "store/NullStore.hpp"
#include "store/StoreBackend.hpp"

namespace ecluse {
namespace {

const char* const kPerProcessPattern = "{simulation}_It{iteration}_Pr{writer}.h5";
const char* const kCollectivePattern = "{simulation}_It{iteration}.h5";
const std::vector<std::string> kPlaceholders = {"{simulation}", "{iteration}", "{writer}"};

std::vector<OptionSpec> hdf5_option_specs() {
  return {
      {"FileMode",
       "FilePerCore: every writer writes its own file per iteration, one dataset per block, "
       "named <variable>/P<source> (<variable>/P<source>/B<block> with several domains). "
       "Collective: all writers write one shared file per iteration through MPI-IO, one "
       "dataset per variable at its global extent, every block at its position. FilePerProcess "
       "is another name for FilePerCore.",
       "FilePerCore",
       {"FilePerCore", "FilePerProcess", "Collective"}},
      {"FilesPath",
       "Directory of the output files, created if missing; a relative path is relative to the "
       "working directory at the time the store is created.",
       ".",
       {}},
      {"FileName",
       "File-name pattern in which {simulation}, {iteration} and {writer} stand for the "
       "simulation name, the iteration and the writer's rank; a '/' makes subdirectories. The "
       "default (empty) depends on FileMode: " +
           std::string(kPerProcessPattern) + " for FilePerCore, " + kCollectivePattern +
           " for Collective.",
       "",
       {}},
      {"XDMFMode",
       "Accepted for compatibility with Damaris configurations; Ecluse writes no XDMF file "
       "whatever the value.",
       "NoIteration",
       {"NoIteration", "FirstIteration", "EveryIteration"}},
  };
}

std::string join(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

std::string context(const Store& store) {
  const std::string at = store.where.file.empty() ? "" : to_string(store.where) + ": ";
  return at + "store '" + store.name + "' of type '" + store.type + "'";
}

[[noreturn]] void config_error(const Store& store, const std::string& message) {
  throw Error(ECLUSE_CONFIG_ERROR, context(store) + ": " + message);
}

const OptionSpec* find_option(const StoreKind& kind, const std::string& key) {
  auto it = std::find_if(kind.options.begin(), kind.options.end(),
                         [&](const OptionSpec& spec) { return spec.key == key; });
  return it == kind.options.end() ? nullptr : &*it;
}

std::string known_options(const StoreKind& kind) {
  if (kind.options.empty()) return "this store type takes no options";
  std::vector<std::string> keys;
  for (const OptionSpec& spec : kind.options) keys.push_back(spec.key);
  return "known options: " + join(keys);
}

void check_options(const Store& store, const StoreKind& kind) {
  for (const auto& [key, value] : store.options) {
    const OptionSpec* spec = find_option(kind, key);
    if (spec == nullptr)
      config_error(store, "unknown option '" + key + "'; " + known_options(kind));
    const auto& allowed = spec->allowed;
    if (allowed.empty() || std::find(allowed.begin(), allowed.end(), value) != allowed.end()) {
      continue;
    }
    config_error(store, "option " + key + " is '" + value + "'; allowed values: " + join(allowed));
  }
}

void check_placeholders(const Store& store, const std::string& pattern, bool collective) {
  for (auto at = pattern.find('{'); at != std::string::npos; at = pattern.find('{', at + 1)) {
    const auto end = pattern.find('}', at);
    const std::string name = pattern.substr(at, end == std::string::npos ? end : end - at + 1);
    if (std::find(kPlaceholders.begin(), kPlaceholders.end(), name) == kPlaceholders.end()) {
      config_error(store, "FileName '" + pattern + "' has an unknown placeholder '" + name +
                              "'; use " + join(kPlaceholders));
    }
    if (collective && name == "{writer}") {
      config_error(store, "FileName '" + pattern +
                              "' uses {writer}, but in Collective mode all writers share one file");
    }
  }
}

// Without {writer}, the writers of a FilePerCore store would all publish the same file name.
void check_writer_placeholder(const Store& store, const std::string& pattern, const StoreEnv& env) {
  int writers = 1;
  if (env.comm != MPI_COMM_NULL) MPI_Comm_size(env.comm, &writers);
  if (writers == 1 || pattern.find("{writer}") != std::string::npos) return;
  config_error(store, "FileName '" + pattern + "' lacks {writer}: the files of the " +
                          std::to_string(writers) + " writers would overwrite each other");
}

std::string file_name_pattern(const Store& store, const StoreKind& kind, const StoreEnv& env,
                              bool collective) {
  std::string pattern = option_or_default(store, kind, "FileName");
  if (pattern.empty()) pattern = collective ? kCollectivePattern : kPerProcessPattern;
  check_placeholders(store, pattern, collective);
  if (!collective) check_writer_placeholder(store, pattern, env);
  return pattern;
}

std::string absolute_directory(std::string path) {
  if (path.empty()) path = ".";
  std::string absolute = std::filesystem::absolute(path).lexically_normal().string();
  while (absolute.size() > 1 && absolute.back() == '/') absolute.pop_back();
  return absolute;
}

std::unique_ptr<StoreBackend> make_hdf5(const Store& store, const StoreEnv& env) {
  const StoreKind& kind = *find_store_kind("HDF5");
  check_options(store, kind);
  const bool collective = option_or_default(store, kind, "FileMode") == "Collective";
  Hdf5Options options{store.name, absolute_directory(option_or_default(store, kind, "FilesPath")),
                      file_name_pattern(store, kind, env, collective)};
  if (collective) return std::make_unique<Hdf5CollectiveStore>(std::move(options), env);
  return std::make_unique<Hdf5FilePerProcessStore>(std::move(options), env);
}

std::unique_ptr<StoreBackend> make_null(const Store& store, const StoreEnv& /*env*/) {
  check_options(store, *find_store_kind("null"));
  return std::make_unique<NullStore>();
}

std::vector<StoreKind> build_kinds() {
  return {
      {"HDF5",
       "HDF5 files as Damaris writes them: one file per writer and iteration (FilePerCore) or "
       "one shared file per iteration (Collective). A file appears under its final name only "
       "once completely written.",
       hdf5_option_specs(), "", make_hdf5},
      {"null",
       "Writes nothing: blocks reach the store and are dropped, to measure Ecluse's own cost.",
       {},
       "",
       make_null},
  };
}

std::string block_context(const BlockData& block) {
  const std::string variable = block.variable ? "variable '" + block.variable->name + "'" : "?";
  return "block " + std::to_string(block.block) + " of " + variable + " from source " +
         std::to_string(block.source);
}

std::uint64_t ghost(const std::vector<std::uint64_t>& ghosts, std::size_t d) {
  return ghosts.empty() ? 0 : ghosts[d];
}

void check_ghost_sizes(const BlockData& block) {
  const std::size_t n = block.dims.size();
  if ((block.ghost_lo.empty() || block.ghost_lo.size() == n) &&
      (block.ghost_hi.empty() || block.ghost_hi.size() == n)) {
    return;
  }
  throw Error(ECLUSE_INVALID_DIMENSIONS,
              block_context(block) + " has ghosts for " + std::to_string(block.ghost_lo.size()) +
                  ":" + std::to_string(block.ghost_hi.size()) + " dimensions but " +
                  std::to_string(n) + " dimensions");
}

}  // namespace

std::vector<std::uint64_t> BlockData::interior() const {
  check_ghost_sizes(*this);
  std::vector<std::uint64_t> extent = dims;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const std::uint64_t ghosts = ghost(ghost_lo, d) + ghost(ghost_hi, d);
    if (ghosts > dims[d]) {
      throw Error(ECLUSE_INVALID_DIMENSIONS, block_context(*this) + " has " +
                                                 std::to_string(ghosts) +
                                                 " ghost cells in dimension " + std::to_string(d) +
                                                 " of extent " + std::to_string(dims[d]));
    }
    extent[d] -= ghosts;
  }
  return extent;
}

const std::vector<StoreKind>& store_kinds() {
  static const std::vector<StoreKind> kinds = build_kinds();
  return kinds;
}

const StoreKind* find_store_kind(std::string_view name) {
  const auto& kinds = store_kinds();
  auto it = std::find_if(kinds.begin(), kinds.end(),
                         [&](const StoreKind& kind) { return kind.name == name; });
  return it == kinds.end() ? nullptr : &*it;
}

std::string option_or_default(const Store& store, const StoreKind& kind, const std::string& key) {
  if (auto it = store.options.find(key); it != store.options.end()) return it->second;
  if (const OptionSpec* spec = find_option(kind, key)) return spec->default_value;
  throw Error(ECLUSE_CONFIG_ERROR, "store type " + kind.name + " has no option '" + key + "'");
}

}  // namespace ecluse
