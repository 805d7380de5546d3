// The factory of each store type of config/StoreKinds: the store family of the one plugin
// registry pattern (config/PluginRegistry).
#pragma once

#include <memory>

#include "config/PluginRegistry.hpp"
#include "config/StoreKinds.hpp"
#include "store/StoreBackend.hpp"

namespace ecluse {

using StoreFactory = std::unique_ptr<StoreBackend> (*)(const Store&, const StoreEnv&);

/** Every store type of store_kinds() with its factory (none for a type not built). */
const PluginRegistry<StoreFactory>& store_registry();

/** Makes the store of a <store> element; throws ECLUSE_CONFIG_ERROR for a type unknown or not
 * built, or options that do not fit where it runs. */
std::unique_ptr<StoreBackend> make_store(const Store& store, const StoreEnv& env);

}  // namespace ecluse
