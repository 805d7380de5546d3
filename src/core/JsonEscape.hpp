// Text as a JSON string literal: shared by the report's writer and the in-situ start-up JSON.
#pragma once

#include <string>

namespace ecluse {

/** `text` quoted and escaped as a JSON string ("..." with \", \\ and \u00XX). */
std::string json_escape(const std::string& text);

}  // namespace ecluse
