// Builds the configuration model from a schema-checked document, checking every value.
#pragma once

#include <pugixml.hpp>

#include "config/Config.hpp"
#include "config/Diagnostics.hpp"
#include "config/XmlSource.hpp"

namespace ecluse {

/** Reads every section; bad values are recorded in `diagnostics` and replaced by defaults. */
Config read_config(const pugi::xml_document& document, const XmlSource& source,
                   Diagnostics& diagnostics);

}  // namespace ecluse
