// The table of store types and their options, and the lookups in it.
#include "config/StoreKinds.hpp"

#include <algorithm>

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
           std::string(kHdf5PerCorePattern) + " for FilePerCore, " + kHdf5PerNodePattern +
           " for FilePerNode, " + kHdf5CollectivePattern + " for Collective.",
       "",
       {}},
      {"XDMFMode",
       "Accepted for compatibility with Damaris configurations; Ecluse writes no XDMF file "
       "whatever the value.",
       "NoIteration",
       {"NoIteration", "FirstIteration", "EveryIteration"}},
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
  const auto& kinds = store_kinds();
  auto it = std::find_if(kinds.begin(), kinds.end(),
                         [&](const StoreKind& kind) { return kind.name == name; });
  return it == kinds.end() ? nullptr : &*it;
}

const OptionSpec* find_option(const StoreKind& kind, const std::string& key) {
  auto it = std::find_if(kind.options.begin(), kind.options.end(),
                         [&](const OptionSpec& spec) { return spec.key == key; });
  return it == kind.options.end() ? nullptr : &*it;
}

std::string option_or_default(const Store& store, const StoreKind& kind, const std::string& key) {
  if (auto it = store.options.find(key); it != store.options.end()) return it->second;
  if (const OptionSpec* spec = find_option(kind, key)) return spec->default_value;
  throw Error(ECLUSE_CONFIG_ERROR, "store type " + kind.name + " has no option '" + key + "'");
}

}  // namespace ecluse
