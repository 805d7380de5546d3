// Parsing, schema check, model building and validation, in that order.
#include "config/ConfigLoader.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "config/ConfigReader.hpp"
#include "config/ConfigSchema.hpp"
#include "config/ConfigValidator.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {

Config parse_config(const std::string& source_name, const std::string& text) {
  const XmlSource source(source_name, text);
  Diagnostics diagnostics;
  pugi::xml_document document;
  const pugi::xml_parse_result parsed = document.load_buffer(text.data(), text.size());
  if (!parsed) {
    diagnostics.error(source.at(parsed.offset), std::string("malformed XML: ") +
                                                    parsed.description() +
                                                    "; fix the XML syntax at this place.");
    diagnostics.raise_if_any();
  }
  check_schema(document, source, diagnostics);
  diagnostics.raise_if_any();
  Config config = read_config(document, source, diagnostics);
  validate_config(config, diagnostics);
  diagnostics.raise_if_any();
  return config;
}

std::string read_config_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(ECLUSE_CONFIG_ERROR, "cannot read configuration file '" + path +
                                         "': " + std::strerror(errno) +
                                         "; check the path given to ecluse_initialize.");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace ecluse
