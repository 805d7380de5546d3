// The C API's names as a program knows them: damaris_* in a Damaris file, ecluse_* otherwise, for
// the messages said on the servers' side, which libdamaris does not rename.
#pragma once

#include <string>
#include <string_view>

#include "config/ConfigEnums.hpp"

namespace ecluse {

/** `call` ("set_position") with the prefix of the dialect's API: "damaris_set_position" for a
 * Damaris file (its program calls libdamaris), "ecluse_set_position" otherwise. */
std::string api_call(Dialect dialect, std::string_view call);

}  // namespace ecluse
