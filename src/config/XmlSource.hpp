// The text of a configuration and the mapping from pugixml offsets to lines and columns.
#pragma once

#include <pugixml.hpp>

#include <string>
#include <vector>

#include "config/Config.hpp"

namespace ecluse {

class XmlSource {
 public:
  XmlSource(std::string name, std::string text);
  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] const std::string& text() const { return text_; }
  [[nodiscard]] SourceLocation at(std::ptrdiff_t offset) const;
  /** Location of an element's '<'. */
  [[nodiscard]] SourceLocation of(const pugi::xml_node& node) const;
  /** Location of an attribute's name within its element (falls back to the element). */
  [[nodiscard]] SourceLocation of(const pugi::xml_node& node, const char* attribute) const;
  /** Location of character `offset` inside an attribute's value. */
  [[nodiscard]] SourceLocation in_value(const pugi::xml_node& node, const char* attribute,
                                        std::size_t offset) const;

 private:
  [[nodiscard]] std::ptrdiff_t attribute_offset(const pugi::xml_node& node,
                                                const char* attribute) const;
  [[nodiscard]] bool names_attribute(std::size_t pos, const char* attribute) const;
  std::string name_;
  std::string text_;
  std::vector<std::size_t> line_starts_;
};

}  // namespace ecluse
