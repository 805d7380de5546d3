// Store type name -> the function that makes an instance; the types and their options are
// declared as data in config/StoreKinds.
#pragma once

#include <memory>
#include <string_view>

#include "config/StoreKinds.hpp"
#include "store/StoreBackend.hpp"

namespace ecluse {

using StoreFactory = std::unique_ptr<StoreBackend> (*)(const Store&, const StoreEnv&);

/** The factory of a built store type; nullptr for an unknown or not-built one. */
StoreFactory store_factory(std::string_view kind);

}  // namespace ecluse
