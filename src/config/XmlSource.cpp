// Lines and columns for configuration messages.
#include "config/XmlSource.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace ecluse {

XmlSource::XmlSource(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (std::size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

SourceLocation XmlSource::at(std::ptrdiff_t offset) const {
  const auto pos = static_cast<std::size_t>(std::max<std::ptrdiff_t>(offset, 0));
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), pos);
  const auto line = static_cast<std::size_t>(it - line_starts_.begin());
  const std::size_t column = pos - line_starts_[line - 1] + 1;
  return {name_, static_cast<int>(line), static_cast<int>(column)};
}

SourceLocation XmlSource::of(const pugi::xml_node& node) const {
  return at(node.offset_debug() - 1);
}

SourceLocation XmlSource::of(const pugi::xml_node& node, const char* attribute) const {
  const std::ptrdiff_t offset = attribute_offset(node, attribute);
  return offset < 0 ? of(node) : at(offset);
}

SourceLocation XmlSource::in_value(const pugi::xml_node& node, const char* attribute,
                                   std::size_t offset) const {
  const std::ptrdiff_t start = attribute_offset(node, attribute);
  if (start < 0) return of(node);
  const std::size_t quote = text_.find_first_of("\"'", static_cast<std::size_t>(start));
  if (quote == std::string::npos) return at(start);
  return at(static_cast<std::ptrdiff_t>(quote + 1 + offset));
}

// True when `attribute` starts at pos as an attribute name: after a space, followed by '='.
bool XmlSource::names_attribute(std::size_t pos, const char* attribute) const {
  const std::size_t length = std::strlen(attribute);
  if (text_.compare(pos, length, attribute) != 0) return false;
  if (std::isspace(static_cast<unsigned char>(text_[pos - 1])) == 0) return false;
  std::size_t after = pos + length;
  while (after < text_.size() && std::isspace(static_cast<unsigned char>(text_[after]))) ++after;
  return after < text_.size() && text_[after] == '=';
}

// Scans the start tag outside quoted values: a value may hold '>' or another attribute's name.
std::ptrdiff_t XmlSource::attribute_offset(const pugi::xml_node& node,
                                           const char* attribute) const {
  const std::ptrdiff_t begin = node.offset_debug();
  if (begin < 0) return -1;
  char quote = 0;
  for (auto pos = static_cast<std::size_t>(begin); pos < text_.size(); ++pos) {
    const char c = text_[pos];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '>') {
      break;
    } else if (pos > static_cast<std::size_t>(begin) && names_attribute(pos, attribute)) {
      return static_cast<std::ptrdiff_t>(pos);
    }
  }
  return -1;
}

}  // namespace ecluse
