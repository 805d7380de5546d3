// The store types a <store> element may name, with their options as data: the configuration
// checks <option>s against this table and the store layer makes the instances (StoreRegistry).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/Config.hpp"

namespace ecluse {

/** An option a store type accepts, described as data so that tools can list it. */
struct OptionSpec {
  std::string key;
  std::string description;
  std::string default_value;
  std::vector<std::string> allowed;  // empty: free text
};

/** A store type in the registry; one that was not built stays listed and says why. */
struct StoreKind {
  std::string name;
  std::string description;
  std::vector<OptionSpec> options;
  std::string not_built;  // empty when available, else e.g. "not built with HDF5"
};

/** The HDF5 store's default file-name pattern of each FileMode. */
inline constexpr const char* kHdf5PerCorePattern = "{simulation}_It{iteration}_Pr{writer}.h5";
inline constexpr const char* kHdf5PerNodePattern = "{simulation}_It{iteration}_Node{node}.h5";
inline constexpr const char* kHdf5CollectivePattern = "{simulation}_It{iteration}.h5";

/** Every store type known to this build, built or not. */
const std::vector<StoreKind>& store_kinds();
const StoreKind* find_store_kind(std::string_view name);
const OptionSpec* find_option(const StoreKind& kind, const std::string& key);

/** Value of an option, or its declared default. */
std::string option_or_default(const Store& store, const StoreKind& kind, const std::string& key);

}  // namespace ecluse
