// The factory of each store type of config/StoreKinds, and the checks of a <store> element's
// file-name pattern made when the store is created (they depend on the writers and nodes).
#include "store/StoreRegistry.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <utility>
#include <vector>

#include "ecluse/Error.hpp"
#include "store/Hdf5CollectiveStore.hpp"
#include "store/Hdf5FilePerNodeStore.hpp"
#include "store/Hdf5FilePerProcessStore.hpp"
#include "store/Hdf5Support.hpp"
#include "store/NullStore.hpp"
#include "store/OutputLock.hpp"
#include "store/XdmfStore.hpp"

namespace ecluse {
namespace {

const std::vector<std::string> kPlaceholders = {"{simulation}", "{iteration}", "{writer}",
                                                "{node}"};

using Hdf5Mode = Hdf5FileMode;

std::string join(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

[[noreturn]] void config_error(const Store& store, const std::string& message) {
  throw Error(ECLUSE_CONFIG_ERROR, store_context(store) + ": " + message);
}

// The placeholders that would give the writers sharing one file different file names.
bool refused_placeholder(Hdf5Mode mode, const std::string& name) {
  if (name == kPlaceholders[2]) return mode != Hdf5Mode::PerCore;
  return name == kPlaceholders[3] && mode == Hdf5Mode::Collective;
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
    config_error(store, "FileName '" + pattern + "' uses " + name + ", but in " +
                            std::string(name_of(mode)) + " mode " + sharing);
  }
}

// File names stay inside the store's directory: the pattern is relative and has no "..".
void check_confined(const Store& store, const std::string& pattern) {
  const std::filesystem::path path(pattern);
  const bool up =
      std::any_of(path.begin(), path.end(), [](const auto& part) { return part == ".."; });
  if (!path.is_absolute() && !up) return;
  config_error(store, "FileName '" + pattern +
                          "' would leave the store's directory (FilesPath); use a relative "
                          "pattern without '..', and FilesPath to choose the directory");
}

// ECLUSE_OUTPUT_ROOT (a trusted setting of the job, not of the configuration) confines every
// store's directory, symbolic links resolved.
void check_output_root(const Store& store, const std::string& directory) {
  const char* root = std::getenv("ECLUSE_OUTPUT_ROOT");
  if (root == nullptr || *root == '\0') return;
  const std::string d = resolved_path(directory);
  if (is_under(d, resolved_path(root))) return;
  config_error(store, "FilesPath '" + directory + "' is outside ECLUSE_OUTPUT_ROOT='" + root +
                          "' (resolved '" + d + "'); choose a directory under it");
}

int parse_permissions(const Store& store, const std::string& text) {
  if (text.empty()) return -1;
  const bool octal = text.size() <= 4 && text.find_first_not_of("01234567") == std::string::npos;
  const int mode = octal ? std::stoi(text, nullptr, 8) : -1;
  if (mode < 0 || mode > 0777) {
    config_error(store, "option Permissions is '" + text +
                            "'; give an octal mode from 0 to 0777, e.g. 0640");
  }
  return mode;
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
  if (mode == Hdf5Mode::Collective) return kHdf5CollectivePattern;
  return mode == Hdf5Mode::PerNode ? kHdf5PerNodePattern : kHdf5PerCorePattern;
}

std::string file_name_pattern(const Store& store, const Hdf5StoreOptions& typed,
                              const StoreEnv& env) {
  const Hdf5Mode mode = typed.mode;
  std::string pattern = typed.file_name.empty() ? default_pattern(mode) : typed.file_name;
  check_placeholders(store, pattern, mode);
  check_confined(store, pattern);
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

/** A store and the output lock its first writer holds for the run's lifetime. */
class LockedStore final : public StoreBackend {
 public:
  LockedStore(std::unique_ptr<OutputLock> lock, std::unique_ptr<StoreBackend> store)
      : lock_(std::move(lock)), store_(std::move(store)) {}
  void write_iteration(int iteration, const std::vector<BlockData>& blocks) override {
    store_->write_iteration(iteration, blocks);
  }
  [[nodiscard]] bool runs_on_any_thread() const override { return store_->runs_on_any_thread(); }
  Completion write_iteration_deferred(int iteration,
                                      const std::vector<BlockData>& blocks) override {
    return store_->write_iteration_deferred(iteration, blocks);
  }
  void take_indices(const std::vector<BlockData>& index_blocks) override {
    store_->take_indices(index_blocks);
  }

 private:
  std::unique_ptr<OutputLock> lock_;  // null on the other writers
  std::unique_ptr<StoreBackend> store_;
};

std::unique_ptr<StoreBackend> make_hdf5_backend(Hdf5Mode mode, Hdf5Options options,
                                                const StoreEnv& env) {
  if (mode == Hdf5Mode::Collective) {
    return std::make_unique<Hdf5CollectiveStore>(std::move(options), env);
  }
  if (mode == Hdf5Mode::PerNode)
    return std::make_unique<Hdf5FilePerNodeStore>(std::move(options), env);
  return std::make_unique<Hdf5FilePerProcessStore>(std::move(options), env);
}

// The rectilinear meshes of the configuration, for the XDMF geometry of their variables.
std::vector<XdmfMesh> rectilinear_meshes(const Config* config) {
  std::vector<XdmfMesh> meshes;
  if (config == nullptr) return meshes;
  for (const Mesh& mesh : config->meshes) {
    if (mesh.type != MeshType::Rectilinear) continue;
    meshes.push_back({mesh.name, {}});
    for (const Mesh::Coord& coord : mesh.coords) meshes.back().coords.push_back(coord.name);
  }
  return meshes;
}

XdmfMode xdmf_mode(const Store& store) {
  return xdmf_mode_of(option_or_default(store, *find_store_kind("HDF5"), "XDMFMode"));
}

// The enabled HDF5 stores of the configuration other than `store`.
std::vector<const Store*> other_hdf5_stores(const Store& store, const Config* config) {
  std::vector<const Store*> others;
  if (config == nullptr) return others;
  for (const Store& other : config->stores) {
    if (&other == &store || other.name == store.name || !other.enabled) continue;
    if (find_store_kind(other.type) == find_store_kind("HDF5")) others.push_back(&other);
  }
  return others;
}

// The XDMF documents are named after the simulation only: two XDMF stores in one directory
// would replace each other's.
void check_xdmf_directory(const Store& store, const std::string& directory, const Config* config) {
  for (const Store* o : other_hdf5_stores(store, config)) {
    const Store& other = *o;
    if (xdmf_mode(other) == XdmfMode::NoIteration) continue;
    if (absolute_directory(hdf5_options(other).files_path) != directory) continue;
    config_error(store,
                 "XDMFMode writes <simulation>_It<iteration>.xmf and <simulation>.xmf "
                 "into FilesPath '" +
                     directory + "', as store '" + other.name +
                     "' does: their documents would replace each other. Give each "
                     "store its own FilesPath");
  }
}

// Two stores publishing the same names into one directory replace each other's files at every
// iteration: the data of all but one is lost, every call returning OK.
void check_distinct_files(const Store& store, const Hdf5Options& options, const Config* config) {
  for (const Store* other : other_hdf5_stores(store, config)) {
    const Hdf5StoreOptions theirs = hdf5_options(*other);
    const std::string pattern =
        theirs.file_name.empty() ? default_pattern(theirs.mode) : theirs.file_name;
    if (pattern != options.file_name ||
        absolute_directory(theirs.files_path) != options.directory) {
      continue;
    }
    config_error(store, "its files ('" + options.file_name + "' in FilesPath '" +
                            options.directory + "') have the names store '" + other->name +
                            "' gives its own: each would replace the other's at every "
                            "iteration and its data would be lost. Give each store its own "
                            "FilesPath or FileName");
  }
}

// The HDF5 backend, wrapped in the XDMF decorator unless XDMFMode is NoIteration.
std::unique_ptr<StoreBackend> with_xdmf(const Store& store, Hdf5Mode mode,
                                        const Hdf5Options& options, const StoreEnv& env) {
  const XdmfMode xdmf = xdmf_mode(store);
  if (xdmf != XdmfMode::NoIteration) check_xdmf_directory(store, options.directory, env.config);
  std::unique_ptr<StoreBackend> hdf5 = make_hdf5_backend(mode, options, env);
  if (xdmf == XdmfMode::NoIteration) return hdf5;
  return std::make_unique<XdmfStore>(std::move(hdf5), xdmf, mode, options,
                                     rectilinear_meshes(env.config), env);
}

std::unique_ptr<OutputLock> lock_on_first_writer(const Hdf5Options& options, const StoreEnv& env) {
  int rank = 0;
  if (env.comm != MPI_COMM_NULL) MPI_Comm_rank(env.comm, &rank);
  if (rank != 0) return nullptr;
  return std::make_unique<OutputLock>(options.directory, env.simulation, options.file_name,
                                      options.store_name, options.sync, env.log);
}

std::unique_ptr<StoreBackend> make_hdf5(const Store& store, const StoreEnv& env) {
  const Hdf5StoreOptions typed = hdf5_options(store);
  Hdf5Options options{
      store.name, absolute_directory(typed.files_path), file_name_pattern(store, typed, env),
      parse_permissions(store, option_or_default(store, *find_store_kind("HDF5"), "Permissions"))};
  options.compression = typed.compression;
  options.sync = typed.sync;
  check_output_root(store, options.directory);
  check_distinct_files(store, options, env.config);
  std::unique_ptr<OutputLock> lock;
  try {
    lock = lock_on_first_writer(options, env);
  } catch (const Error& e) {  // an output directory that cannot be made: where the store is
    if (store.where.line <= 0) throw;
    throw Error(e.status(), to_string(store.where) + ": " + e.what());
  }
  return std::make_unique<LockedStore>(std::move(lock), with_xdmf(store, typed.mode, options, env));
}

std::unique_ptr<StoreBackend> make_null(const Store& store, const StoreEnv& /*env*/) {
  check_store_options(store, *find_store_kind("null"));
  return std::make_unique<NullStore>();
}

}  // namespace

const PluginRegistry<StoreFactory>& store_registry() {
  static const PluginRegistry<StoreFactory> registry(store_kinds(),
                                                     {{"HDF5", make_hdf5}, {"null", make_null}});
  return registry;
}

std::unique_ptr<StoreBackend> make_store(const Store& store, const StoreEnv& env) {
  const StoreKind* kind = find_store_kind(store.type);
  const auto* entry = kind ? store_registry().find(*kind) : nullptr;
  if (!entry || !entry->make) {
    throw Error(ECLUSE_CONFIG_ERROR, to_string(store.where) + ": store '" + store.name +
                                         "' of type '" + store.type + "' is " +
                                         (kind ? kind->not_built : "unknown") + ".");
  }
  return entry->make(store, env);
}

}  // namespace ecluse
