// A plugin as data: its name, a one-line description, the options it accepts (typed, with
// defaults) and, when it was not compiled in, why. Stores, energy sources and frequency
// controllers are declared this way in config/; the layers above attach a factory to each
// (PluginRegistry), the reader checks <option>s against them and tools list them.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ecluse {

enum class OptionType { Text, Choice, Path, Number };

/** An option a plugin accepts, described as data so that tools can list it. */
struct OptionSpec {
  std::string key;
  std::string description;
  std::string default_value;
  std::vector<std::string> allowed;  // Choice: the values accepted; empty otherwise
  OptionType type = OptionType::Text;
};

struct PluginSpec {
  std::string name;
  std::string description;
  std::vector<OptionSpec> options;
  std::string not_built;  // empty when available, else e.g. "not built with HDF5"

  [[nodiscard]] const OptionSpec* option(std::string_view key) const;
};

/** What the table says about one `key = value` given to a plugin. */
struct OptionCheck {
  enum class Status { Ok, UnknownKey, BadValue } status = Status::Ok;
  std::string closest;             // the closest known key or allowed value, or ""
  std::vector<std::string> known;  // the keys (UnknownKey) or the allowed values (BadValue)
};

/** Checks one option against the plugin's table: the one check of plugin options. */
OptionCheck check_option(const PluginSpec& plugin, const std::string& key,
                         const std::string& value);

/** The value given for `key`, or its declared default; throws ECLUSE_CONFIG_ERROR for a key
 * the plugin does not declare. */
std::string option_or_default(const PluginSpec& plugin,
                              const std::map<std::string, std::string>& options,
                              const std::string& key);

/** The spec named `name` (exact spelling), or nullptr. */
const PluginSpec* find_plugin(const std::vector<PluginSpec>& plugins, std::string_view name);

const char* to_string(OptionType type);

}  // namespace ecluse
