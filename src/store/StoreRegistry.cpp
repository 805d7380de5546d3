// The table of store types with their options as data, and the checks of a <store> element
// against it; also BlockData::interior, the one computation every store needs.
#include <algorithm>
#include <filesystem>
#include <utility>

#include "ecluse/Error.hpp"
#include "store/Hdf5CollectiveStore.hpp"
#include "store/Hdf5FilePerNodeStore.hpp"
#include "store/Hdf5FilePerProcessStore.hpp"
#include "store/NullStore.hpp"
#include "store/StoreBackend.hpp"

namespace ecluse {
namespace {

const char* const kPerProcessPattern = "{simulation}_It{iteration}_Pr{writer}.h5";
const char* const kPerNodePattern = "{simulation}_It{iteration}_Node{node}.h5";
const char* const kCollectivePattern = "{simulation}_It{iteration}.h5";
const std::vector<std::string> kPlaceholders = {"{simulation}", "{iteration}", "{writer}",
                                                "{node}"};

enum class Hdf5Mode { PerCore, PerNode, Collective };

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
       "is another name for FilePerCore.",
       "FilePerCore",
       {"FilePerCore", "FilePerProcess", "FilePerNode", "Collective"}},
      {"FilesPath",
       "Directory of the output files, created if missing; a relative path is relative to the "
       "working directory at the time the store is created.",
       ".",
       {}},
      {"FileName",
       "File-name pattern in which {simulation}, {iteration}, {writer} and {node} stand for the "
       "simulation name, the iteration, the writer's rank and its node number; a '/' makes "
       "subdirectories. FilePerCore needs {writer} and FilePerNode {node} when there are "
       "several writers or nodes; {writer} is refused in FilePerNode and Collective, {node} in "
       "Collective, since their writers share a file. The default (empty) depends on FileMode: " +
           std::string(kPerProcessPattern) + " for FilePerCore, " + kPerNodePattern +
           " for FilePerNode, " + kCollectivePattern + " for Collective.",
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

Hdf5Mode hdf5_mode(const Store& store, const StoreKind& kind) {
  const std::string mode = option_or_default(store, kind, "FileMode");
  if (mode == "Collective") return Hdf5Mode::Collective;
  return mode == "FilePerNode" ? Hdf5Mode::PerNode : Hdf5Mode::PerCore;
}

const char* mode_name(Hdf5Mode mode) {
  if (mode == Hdf5Mode::Collective) return "Collective";
  return mode == Hdf5Mode::PerNode ? "FilePerNode" : "FilePerCore";
}

// The placeholders that would give the writers sharing one file different file names.
bool refused_placeholder(Hdf5Mode mode, const std::string& name) {
  if (name == "{writer}") return mode != Hdf5Mode::PerCore;
  return name == "{node}" && mode == Hdf5Mode::Collective;
}

void check_placeholders(const Store& store, const std::string& pattern, Hdf5Mode mode) {
  for (auto at = pattern.find('{'); at != std::string::npos; at = pattern.find('{', at + 1)) {
    const auto end = pattern.find('}', at);
    const std::string name = pattern.substr(at, end == std::string::npos ? end : end - at + 1);
    if (std::find(kPlaceholders.begin(), kPlaceholders.end(), name) == kPlaceholders.end()) {
      config_error(store, "FileName '" + pattern + "' has an unknown placeholder '" + name +
                              "'; use " + join(kPlaceholders));
    }
    if (!refused_placeholder(mode, name)) continue;
    const char* sharing = mode == Hdf5Mode::Collective ? "all writers share one file"
                                                       : "the writers of a node share one file";
    config_error(store, "FileName '" + pattern + "' uses " + name + ", but in " + mode_name(mode) +
                            " mode " + sharing);
  }
}

int size_of(MPI_Comm comm) {
  int size = 1;
  if (comm != MPI_COMM_NULL) MPI_Comm_size(comm, &size);
  return size;
}

// Without {writer}, the writers of a FilePerCore store would all publish the same file name.
void check_writer_placeholder(const Store& store, const std::string& pattern, const StoreEnv& env) {
  const int writers = size_of(env.comm);
  if (writers == 1 || pattern.find("{writer}") != std::string::npos) return;
  config_error(store, "FileName '" + pattern + "' lacks {writer}: the files of the " +
                          std::to_string(writers) + " writers would overwrite each other");
}

// Without {node}, the nodes of a FilePerNode store would all publish the same file name. A node
// holding fewer writers than the store means there are other nodes; no communication needed.
void check_node_placeholder(const Store& store, const std::string& pattern, const StoreEnv& env) {
  const int node_writers = size_of(env.node_comm);  // MPI_COMM_NULL: alone on its node
  if (node_writers == size_of(env.comm) || pattern.find("{node}") != std::string::npos) return;
  config_error(store, "FileName '" + pattern +
                          "' lacks {node}: the files of the writers' nodes would overwrite each "
                          "other");
}

std::string default_pattern(Hdf5Mode mode) {
  if (mode == Hdf5Mode::Collective) return kCollectivePattern;
  return mode == Hdf5Mode::PerNode ? kPerNodePattern : kPerProcessPattern;
}

std::string file_name_pattern(const Store& store, const StoreKind& kind, const StoreEnv& env,
                              Hdf5Mode mode) {
  std::string pattern = option_or_default(store, kind, "FileName");
  if (pattern.empty()) pattern = default_pattern(mode);
  check_placeholders(store, pattern, mode);
  if (mode == Hdf5Mode::PerCore) check_writer_placeholder(store, pattern, env);
  if (mode == Hdf5Mode::PerNode) check_node_placeholder(store, pattern, env);
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
  const Hdf5Mode mode = hdf5_mode(store, kind);
  Hdf5Options options{store.name, absolute_directory(option_or_default(store, kind, "FilesPath")),
                      file_name_pattern(store, kind, env, mode)};
  if (mode == Hdf5Mode::Collective) {
    return std::make_unique<Hdf5CollectiveStore>(std::move(options), env);
  }
  if (mode == Hdf5Mode::PerNode)
    return std::make_unique<Hdf5FilePerNodeStore>(std::move(options), env);
  return std::make_unique<Hdf5FilePerProcessStore>(std::move(options), env);
}

std::unique_ptr<StoreBackend> make_null(const Store& store, const StoreEnv& /*env*/) {
  check_options(store, *find_store_kind("null"));
  return std::make_unique<NullStore>();
}

std::vector<StoreKind> build_kinds() {
  return {
      {"HDF5",
       "HDF5 files as Damaris writes them: one file per writer and iteration (FilePerCore), one "
       "per node and iteration (FilePerNode) or one shared file per iteration (Collective). A "
       "file appears under its final name only once completely written.",
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
