// The iteration plugins of a writer: one PluginHook per kind="iteration" event.
#pragma once

#include "insitu/InSitu.hpp"

namespace ecluse {

/** Adds a PluginHook for every kind="iteration" <event> (loaded at initialize by EventTable). */
void add_plugin_hooks(Writer& writer, const InSituContext& context);

}  // namespace ecluse
