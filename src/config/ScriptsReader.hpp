// <scripts><pyscript> (Damaris 1.7's Python scripts) and a variable's script=: read into the
// model, then checked (the file is readable, every script= names a <pyscript>).
#pragma once

#include <pugixml.hpp>

#include <string>
#include <vector>

#include "config/AttributeReader.hpp"
#include "config/Config.hpp"

namespace ecluse {

/** The <pyscript>s of <scripts> (none when the section is absent). */
std::vector<PyScript> read_scripts(const pugi::xml_node& scripts, const AttributeReader& attrs);

/** A variable's script= ("#" or empty: none; a list like store=). */
void read_variable_scripts(const pugi::xml_node& node, const AttributeReader& attrs, Variable& v);

/** Every <pyscript> names one scheduler-file at most, every variable's script= names a
 * <pyscript>. */
void check_scripts(const Config& config, Diagnostics& d);

/** "file:line:col: cannot read the script file ..." when the script's file cannot be read by
 * this process, else empty: checked where the scripts run, at initialize. */
std::string script_file_problem(const PyScript& script);

}  // namespace ecluse
