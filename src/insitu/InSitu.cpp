// The in-situ hooks of a writer, made from the configuration.
#include "insitu/InSitu.hpp"

#include "core/Collective.hpp"
#include "insitu/PluginHooks.hpp"

namespace ecluse {

void attach_insitu(Writer& writer, const InSituContext& context) {
  run_collectively(context.writers, [&] { add_plugin_hooks(writer, context); });
}

}  // namespace ecluse
