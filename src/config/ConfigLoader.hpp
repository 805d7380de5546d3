// Entry point of the configuration layer: text in, validated model out.
#pragma once

#include <string>

#include "config/Config.hpp"

namespace ecluse {

/** Parses and validates; throws Error(ECLUSE_CONFIG_ERROR) listing every problem found, each
 * as "file:line:column: what is wrong; how to fix it". */
Config parse_config(const std::string& source_name, const std::string& text);

/** Reads a configuration file; throws Error(ECLUSE_CONFIG_ERROR) if it cannot. */
std::string read_config_file(const std::string& path);

}  // namespace ecluse
