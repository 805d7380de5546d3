// Every plugin family with its table, for tools: what `--list-plugins` prints comes from the
// same tables the configuration reader checks against.
#pragma once

#include <string>
#include <vector>

#include "config/PluginSpec.hpp"

namespace ecluse {

struct PluginFamily {
  const char* noun;  // "store type", "energy source", "frequency controller"
  const std::vector<PluginSpec>* plugins;
};

/** Stores, energy sources, frequency controllers. */
std::vector<PluginFamily> plugin_families();

/** Every plugin of every family with its description and options (type, default, allowed
 * values), one block per plugin; a plugin not built says why. */
std::string plugin_listing();

}  // namespace ecluse
