// Cross-reference and value checks of a configuration model.
#pragma once

#include "config/Config.hpp"
#include "config/Diagnostics.hpp"

namespace ecluse {

/** Resolves relative references to full names (in place) and records every problem. */
void validate_config(Config& config, Diagnostics& diagnostics);

}  // namespace ecluse
