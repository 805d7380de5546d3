// Lookups in a plugin's table and the check of one option against it.
#include "config/PluginSpec.hpp"

#include <algorithm>

#include "config/Suggest.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {

const OptionSpec* PluginSpec::option(std::string_view key) const {
  auto it = std::find_if(options.begin(), options.end(),
                         [&](const OptionSpec& spec) { return spec.key == key; });
  return it == options.end() ? nullptr : &*it;
}

OptionCheck check_option(const PluginSpec& plugin, const std::string& key,
                         const std::string& value) {
  const OptionSpec* spec = plugin.option(key);
  if (spec == nullptr) {
    std::vector<std::string> keys;
    for (const OptionSpec& s : plugin.options) keys.push_back(s.key);
    return {OptionCheck::Status::UnknownKey, closest(key, keys), keys};
  }
  const auto& allowed = spec->allowed;
  if (allowed.empty() || std::find(allowed.begin(), allowed.end(), value) != allowed.end()) {
    return {};
  }
  return {OptionCheck::Status::BadValue, closest(value, allowed), allowed};
}

std::string option_or_default(const PluginSpec& plugin,
                              const std::map<std::string, std::string>& options,
                              const std::string& key) {
  if (auto it = options.find(key); it != options.end()) return it->second;
  if (const OptionSpec* spec = plugin.option(key)) return spec->default_value;
  throw Error(ECLUSE_CONFIG_ERROR, plugin.name + " has no option '" + key + "'");
}

const PluginSpec* find_plugin(const std::vector<PluginSpec>& plugins, std::string_view name) {
  auto it = std::find_if(plugins.begin(), plugins.end(),
                         [&](const PluginSpec& plugin) { return plugin.name == name; });
  return it == plugins.end() ? nullptr : &*it;
}

const char* to_string(OptionType type) {
  switch (type) {
    case OptionType::Choice:
      return "choice";
    case OptionType::Path:
      return "path";
    case OptionType::Number:
      return "number";
    default:
      return "text";
  }
}

}  // namespace ecluse
