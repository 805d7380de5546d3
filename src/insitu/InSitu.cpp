// The in-situ hooks of a writer, made from the configuration.
#include "insitu/InSitu.hpp"

#include "config/ScriptsReader.hpp"
#include "core/Collective.hpp"
#include "ecluse/Error.hpp"
#include "insitu/PluginHooks.hpp"
#include "insitu/PyScriptHook.hpp"
#include "insitu/PyScriptSetup.hpp"

namespace ecluse {
namespace {

// One interpreter per writer process, shared by its <pyscript>s.
void attach_pyscripts(Writer& writer, const InSituContext& context) {
  const auto& scripts = context.config.scripts;
  if (scripts.empty()) return;
  for (const PyScript& s : scripts) {
    if (const std::string problem = script_file_problem(s); !problem.empty()) {
      throw Error(ECLUSE_CONFIG_ERROR, problem);
    }
  }
  auto library = std::make_shared<PyScriptLibrary>(pyscript_setup(context), context.writers);
  for (std::size_t i = 0; i < scripts.size(); ++i) {
    writer.add_hook(std::make_unique<PyScriptHook>(scripts[i], static_cast<int>(i), library));
  }
}

}  // namespace

void attach_insitu(Writer& writer, const InSituContext& context) {
  run_collectively(context.writers, [&] {
    add_plugin_hooks(writer, context);
    attach_pyscripts(writer, context);
  });
}

}  // namespace ecluse
