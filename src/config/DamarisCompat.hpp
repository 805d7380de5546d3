// What a Damaris 1.x file may say beyond Ecluse's own model: its dialect, the placement of
// dedicated cores, store lists, and the warnings for what Ecluse accepts but does not do.
#pragma once

#include <pugixml.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "config/AttributeReader.hpp"
#include "config/Config.hpp"

namespace ecluse {

/** Damaris's meaning for a file in Damaris's namespace, Ecluse's otherwise. */
Dialect dialect_of(const pugi::xml_node& root);

/** The names of a store= list: separated by commas, semicolons or blanks (as Damaris splits
 * them); "#" and empty items name no store. */
std::vector<std::string> store_list(const std::string& text);

/** <placement mask start step blocksize>, checked against <dedicated> and servers=. */
CorePlacement read_core_placement(const pugi::xml_node& node, const Architecture& architecture,
                                  const AttributeReader& attrs);

/** One warning per section Ecluse has no back-end for (<visit>, <paraview>, <python>,
 * <actions><script>, <error>), naming what will not run and what to do. */
void warn_without_backend(const pugi::xml_node& root, const AttributeReader& attrs);

/** <buffer type="sysv" blocks enabled="false">: accepted, what Ecluse does instead. */
void warn_buffer(const pugi::xml_node& node, const AttributeReader& attrs);

/** <log RotationSize LogFormat>: accepted, not used. */
void warn_log(const pugi::xml_node& node, const AttributeReader& attrs);

/** Variable attributes Ecluse keeps no meaning for (select, select-file, vectorlength). */
void warn_variable(const pugi::xml_node& node, const AttributeReader& attrs);

/** <layout ghost="..."> (Damaris files only: a misspelling of ghosts= in Damaris's own
 * examples, which Damaris ignores): ignored too, with a warning. */
void warn_layout(const pugi::xml_node& node, const AttributeReader& attrs);

/** Whether Damaris 1.x's schema knows this type name (short int integer long float real double
 * char character string label); Ecluse's fixed-width and unsigned names are not. */
bool is_damaris_type_name(std::string_view name);

/** type="uint16" (or another name Damaris does not know) in a Damaris file: accepted, said once,
 * since Damaris 1.x refuses the file. */
void warn_type(const pugi::xml_node& node, const std::string& name, const AttributeReader& attrs);

}  // namespace ecluse
