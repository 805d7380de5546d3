// Typed attribute access for the configuration reader; bad values become diagnostics.
#pragma once

#include <pugixml.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "config/Diagnostics.hpp"
#include "config/XmlSource.hpp"
#include "core/EnumNames.hpp"

namespace ecluse {

class AttributeReader {
 public:
  AttributeReader(const XmlSource& source, Diagnostics& diagnostics)
      : source_(source), diagnostics_(diagnostics) {}

  [[nodiscard]] std::string text(const pugi::xml_node& node, const char* name,
                                 const std::string& fallback = "") const;
  /** An integer >= minimum and <= maximum (by default what an int holds: the attributes read
   * this way are counts stored as int, which must not wrap). */
  [[nodiscard]] std::int64_t integer(const pugi::xml_node& node, const char* name,
                                     std::int64_t fallback, std::int64_t minimum,
                                     std::int64_t maximum = 2147483647) const;
  /** A byte count, with an optional suffix: K, M, G, KB, MB, GB (powers of 1000), KiB, MiB,
   * GiB, TiB (powers of 1024). */
  [[nodiscard]] std::uint64_t bytes(const pugi::xml_node& node, const char* name,
                                    std::uint64_t fallback) const;
  /** true/yes/1 or false/no/0, any case. In a Damaris file (damaris_booleans), the attributes
   * that are booleans in Damaris's schema as its parser reads them: "true" and "1" are true, any
   * other value false, and a value other than true, false, 1 or 0 is warned with that reading
   * (OPM writes Flush="True": false there). */
  [[nodiscard]] bool boolean(const pugi::xml_node& node, const char* name, bool fallback) const;
  void damaris_booleans(bool on) { damaris_booleans_ = on; }
  /** One of `allowed` (case-insensitive match, returned as spelled in `allowed`). */
  [[nodiscard]] std::string choice(const pugi::xml_node& node, const char* name,
                                   const std::vector<std::string>& allowed,
                                   const std::string& fallback) const;
  /** One of the names of E (case-insensitive), as its value. */
  template <NamedEnum E>
  [[nodiscard]] E choice(const pugi::xml_node& node, const char* name, E fallback) const {
    const std::string spelled =
        choice(node, name, names_of_enum<E>(), std::string(name_of(fallback)));
    for (const auto& entry : enum_names(E{})) {
      if (entry.name == spelled) return entry.value;
    }
    return fallback;
  }
  [[nodiscard]] SourceLocation where(const pugi::xml_node& node, const char* name) const {
    return source_.of(node, name);
  }
  [[nodiscard]] const XmlSource& source() const { return source_; }
  [[nodiscard]] Diagnostics& diagnostics() const { return diagnostics_; }

 private:
  void bad_value(const pugi::xml_node& node, const char* name, const std::string& expected) const;
  [[nodiscard]] bool damaris_boolean(const pugi::xml_node& node, const char* name) const;
  const XmlSource& source_;
  Diagnostics& diagnostics_;
  bool damaris_booleans_ = false;
};

}  // namespace ecluse
