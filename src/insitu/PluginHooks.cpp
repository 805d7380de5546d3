// The iteration plugins of a writer, in the order of their <event>s.
#include "insitu/PluginHooks.hpp"

#include <memory>

#include "insitu/PluginHook.hpp"

namespace ecluse {

void add_plugin_hooks(Writer& writer, const InSituContext& context) {
  for (const Event& event : context.config.events) {
    if (event.kind != EventKind::Iteration) continue;
    writer.add_hook(std::make_unique<PluginHook>(event, context.events.plugin(event),
                                                 context.writers, context.log));
  }
}

}  // namespace ecluse
