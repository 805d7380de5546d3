// The shape of a configuration file: which elements, attributes and children are allowed.
#pragma once

#include <pugixml.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "config/Diagnostics.hpp"
#include "config/XmlSource.hpp"

namespace ecluse {

/** Namespaces accepted on <simulation>: Ecluse's own and Damaris 1.x's. */
inline constexpr const char* kEcluseNamespace = "urn:ecluse:config:1";
inline constexpr const char* kDamarisNamespace = "http://damaris.gforge.inria.fr/damaris/model";
/** The namespace of Damaris's schema for a while (its own test.xml and ParaView examples of
 * that time carry it); read as Damaris 1.x too. */
inline constexpr const char* kDamarisGitlabNamespace = "https://gitlab.inria.fr/Damaris/damaris";

/** Whether `uri` is one of the namespaces of Damaris 1.x's schema. */
inline bool is_damaris_namespace(std::string_view uri) {
  return uri == kDamarisNamespace || uri == kDamarisGitlabNamespace;
}

/** An element: its attributes (any element may also have a `comment`, as in Damaris's schema),
 * the required ones, its children, and which of those may appear more than once (the others are
 * single: a second one is refused with both lines). */
struct ElementRule {
  std::string name;
  std::vector<std::string> attributes;
  std::vector<std::string> required;
  std::vector<std::string> children;
  std::vector<std::string> repeatable = {};
  // Outside the schema, but each has a warning of its own in a Damaris 1.x file (DamarisCompat)
  // instead of the generic "unknown attribute ... is ignored"; unknown attributes in an Ecluse
  // file.
  std::vector<std::string> damaris_ignored = {};
  // Its content (children and attributes) is not checked: a section of a newer Damaris that
  // Ecluse does not run (<plugins>); the reader warns about what it holds.
  bool opaque = false;
};

/** The children of an unstructured <mesh> that name the variables of its arrays. */
const std::vector<std::string>& unstructured_mesh_parts();

/** Rule of an element by name, or nullptr. */
const ElementRule* find_rule(const std::string& element);

/** Checks names of elements and attributes, required attributes and the root; records every
 * problem in `diagnostics`. */
void check_schema(const pugi::xml_document& document, const XmlSource& source,
                  Diagnostics& diagnostics);

}  // namespace ecluse
