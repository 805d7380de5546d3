// Parsing, schema check, model building and validation, in that order.
#include "config/ConfigLoader.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "config/ConfigReader.hpp"
#include "config/ConfigSchema.hpp"
#include "config/ConfigValidator.hpp"
#include "config/Limits.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {
namespace {

struct OpenElement {
  std::string name;
  std::size_t offset;  // of its '<'
};

std::size_t tag_end(const std::string& text, std::size_t pos) {
  char quote = 0;
  for (; pos < text.size(); ++pos) {
    if (quote != 0) {
      if (text[pos] == quote) quote = 0;
    } else if (text[pos] == '"' || text[pos] == '\'') {
      quote = text[pos];
    } else if (text[pos] == '>') {
      return pos;
    }
  }
  return text.size();
}

// pugixml only says "Start-end tags mismatch"; the user needs the element left open, which a
// scan of the text before the error finds (that text parsed, so a simple scan is enough).
std::vector<OpenElement> open_elements(const std::string& text, std::size_t end) {
  std::vector<OpenElement> open;
  for (std::size_t pos = text.find('<'); pos < end; pos = text.find('<', pos)) {
    if (text.compare(pos, 4, "<!--") == 0) {
      pos = text.find("-->", pos);
    } else if (text.compare(pos, 9, "<![CDATA[") == 0) {
      pos = text.find("]]>", pos);
    } else if (text[pos + 1] == '?' || text[pos + 1] == '!') {
      pos = text.find('>', pos);
    } else {
      const std::size_t close = tag_end(text, pos);
      const bool closing = text[pos + 1] == '/';
      const std::size_t start = pos + (closing ? 2 : 1);
      const std::size_t length = text.find_first_of(" \t\r\n/>", start) - start;
      if (closing && !open.empty()) open.pop_back();
      if (!closing && text[close - 1] != '/') open.push_back({text.substr(start, length), pos});
      pos = close;
    }
  }
  return open;
}

void tags_mismatch(const XmlSource& source, std::size_t offset, Diagnostics& diagnostics) {
  const std::string& text = source.text();
  const bool at_closing_tag =
      offset >= 2 && offset <= text.size() && text.compare(offset - 2, 2, "</") == 0;
  const std::size_t end = at_closing_tag ? offset - 2 : text.size();
  const std::vector<OpenElement> open = open_elements(text, end);
  const std::string closing =
      at_closing_tag ? "</" + text.substr(offset, text.find('>', offset) - offset) + ">" : "";
  if (open.empty()) {
    diagnostics.error(source.at(static_cast<std::ptrdiff_t>(end)),
                      "malformed XML: " + closing + " closes no open element; remove it.");
    return;
  }
  const OpenElement& last = open.back();
  const SourceLocation opened = source.at(static_cast<std::ptrdiff_t>(last.offset));
  const std::string fix = "; close it with </" + last.name + "> (or write <" + last.name +
                          " .../> if it has no content).";
  if (!at_closing_tag) {
    diagnostics.error(
        opened, "malformed XML: <" + last.name + "> is still open at the end of the file" + fix);
    return;
  }
  diagnostics.error(source.at(static_cast<std::ptrdiff_t>(end)),
                    "malformed XML: found " + closing + " but <" + last.name + "> opened at line " +
                        std::to_string(opened.line) + " is still open" + fix);
}

std::string syntax_hint(pugi::xml_parse_status status) {
  switch (status) {
    case pugi::status_bad_attribute:
      return "write attributes as name=\"value\", with the value between matching quotes";
    case pugi::status_bad_start_element:
      return "check that the start tag ends with '>' or '/>' and its attributes are quoted";
    case pugi::status_bad_end_element:
      return "write the closing tag as </name>";
    case pugi::status_bad_comment:
      return "end the comment with '-->' and do not use '--' inside it";
    case pugi::status_no_document_element:
      return "the file must contain <simulation name=\"...\"> ... </simulation>";
    default:
      return "fix the XML syntax at this place";
  }
}

void malformed(const XmlSource& source, const pugi::xml_parse_result& parsed,
               Diagnostics& diagnostics) {
  if (parsed.status == pugi::status_end_element_mismatch) {
    return tags_mismatch(source, static_cast<std::size_t>(parsed.offset), diagnostics);
  }
  std::string what = parsed.description();
  if (!what.empty()) what[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(what[0])));
  diagnostics.error(source.at(parsed.offset),
                    "malformed XML: " + what + "; " + syntax_hint(parsed.status) + ".");
}

std::string too_large(std::size_t bytes) {
  return "the configuration is larger than " + std::to_string(limits::kConfigBytes >> 20) +
         " MiB (" + (bytes > limits::kConfigBytes ? "at least " : "") + std::to_string(bytes) +
         " bytes); a configuration describes data, it does not hold it: check the file.";
}

// Later passes recurse over elements: bound the depth first, without recursion.
void check_depth(const pugi::xml_document& document, const XmlSource& source,
                 Diagnostics& diagnostics) {
  std::vector<std::pair<pugi::xml_node, std::size_t>> pending{{document.document_element(), 1}};
  while (!pending.empty()) {
    auto [node, depth] = pending.back();
    pending.pop_back();
    if (depth > limits::kElementDepth) {
      diagnostics.error(source.of(node),
                        "<" + std::string(node.name()) + "> is nested " + std::to_string(depth) +
                            " elements deep; the limit is " +
                            std::to_string(limits::kElementDepth) + ": flatten the groups.");
      return;
    }
    for (pugi::xml_node child = node.first_child(); child; child = child.next_sibling()) {
      if (child.type() == pugi::node_element) pending.emplace_back(child, depth + 1);
    }
  }
}

// pugixml keeps elements that follow the root element, where an XML parser (Damaris's Xerces)
// refuses them: a <storage> left after </simulation> by mistake would be silently ignored.
void check_nothing_after_root(const pugi::xml_document& document, const XmlSource& source,
                              Diagnostics& diagnostics) {
  const pugi::xml_node root = document.document_element();
  const std::string end = "</" + std::string(root.name()) + ">";
  pugi::xml_node node = root.next_sibling();
  while (node && node.type() != pugi::node_element) node = node.next_sibling();
  if (!node) return;
  diagnostics.error(source.of(node), "<" + std::string(node.name()) + "> comes after " + end +
                                         ", where it would be ignored; move it inside <" +
                                         root.name() + ">.");
}

// Damaris's parser (Xerces) expands the entities a file declares in its <!DOCTYPE>; pugixml
// keeps a reference such as &nx; as its text, so a value would silently be "&nx;".
void check_no_entities(const pugi::xml_document& document, const XmlSource& source,
                       Diagnostics& diagnostics) {
  for (pugi::xml_node node = document.first_child(); node; node = node.next_sibling()) {
    if (node.type() != pugi::node_doctype) continue;
    const std::string declared = node.value();
    const std::size_t entity = declared.find("<!ENTITY");
    if (entity == std::string::npos) continue;
    const std::size_t end = declared.find('>', entity);
    const std::string first =
        declared.substr(entity, end == std::string::npos ? std::string::npos : end - entity + 1);
    const auto at = node.offset_debug() + static_cast<std::ptrdiff_t>(entity);  // its <!ENTITY
    diagnostics.error(source.at(at),
                      "<!DOCTYPE> declares XML entities (" + first +
                          "), which Ecluse does not expand (it reads no DTD): write each "
                          "entity's value where the file uses it (&name;) and remove the "
                          "declarations.");
  }
}

}  // namespace

Config parse_config(const std::string& source_name, const std::string& text) {
  if (text.size() > limits::kConfigBytes) {
    throw Error(ECLUSE_CONFIG_ERROR, source_name + ": " + too_large(text.size()));
  }
  const XmlSource source(source_name, text);
  Diagnostics diagnostics;
  pugi::xml_document document;
  const pugi::xml_parse_result parsed =
      document.load_buffer(text.data(), text.size(), pugi::parse_default | pugi::parse_doctype);
  if (!parsed) {
    malformed(source, parsed, diagnostics);
    diagnostics.raise_if_any();
  }
  check_nothing_after_root(document, source, diagnostics);
  check_no_entities(document, source, diagnostics);
  check_depth(document, source, diagnostics);
  diagnostics.raise_if_any();
  check_schema(document, source, diagnostics);
  diagnostics.raise_if_any();
  Config config = read_config(document, source, diagnostics);
  validate_config(config, diagnostics);
  diagnostics.raise_if_any();
  config.warnings = diagnostics.warnings();
  config.index_names();
  return config;
}

std::string read_config_file(const std::string& path) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    throw Error(ECLUSE_CONFIG_ERROR, "'" + path +
                                         "' is a directory, not a configuration file; give the "
                                         "path of the XML file to ecluse_initialize.");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(ECLUSE_CONFIG_ERROR, "cannot read configuration file '" + path +
                                         "': " + std::strerror(errno) +
                                         "; check the path given to ecluse_initialize.");
  }
  // Read at most one chunk past the limit: /dev/zero or a huge file is refused, not read.
  std::string text;
  char chunk[1 << 16];
  while (text.size() <= limits::kConfigBytes && in.read(chunk, sizeof chunk).gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
  }
  if (text.size() > limits::kConfigBytes) {
    throw Error(ECLUSE_CONFIG_ERROR, path + ": " + too_large(text.size()));
  }
  return text;
}

}  // namespace ecluse
