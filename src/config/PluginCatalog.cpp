// The listing of every plugin, from the tables.
#include "config/PluginCatalog.hpp"

#include "config/EnergySourceKinds.hpp"
#include "config/FrequencyControllerKinds.hpp"
#include "config/StoreKinds.hpp"
#include "config/Suggest.hpp"

namespace ecluse {
namespace {

std::string option_line(const OptionSpec& o) {
  std::string line = "    " + o.key + " (" + to_string(o.type);
  if (!o.allowed.empty()) line += ": " + join(o.allowed, " | ");
  line += o.default_value.empty() ? ")" : ", default " + o.default_value + ")";
  return line + ": " + o.description + "\n";
}

std::string plugin_block(const char* noun, const PluginSpec& p) {
  std::string text = std::string(noun) + " " + p.name;
  text += p.not_built.empty() ? "" : " (" + p.not_built + ")";
  text += ": " + p.description + "\n";
  for (const OptionSpec& o : p.options) text += option_line(o);
  return text;
}

}  // namespace

std::vector<PluginFamily> plugin_families() {
  return {{"store type", &store_kinds()},
          {"energy source", &energy_source_specs()},
          {"frequency controller", &frequency_controller_specs()}};
}

std::string plugin_listing() {
  std::string text;
  for (const PluginFamily& family : plugin_families()) {
    for (const PluginSpec& plugin : *family.plugins) text += plugin_block(family.noun, plugin);
  }
  return text;
}

}  // namespace ecluse
