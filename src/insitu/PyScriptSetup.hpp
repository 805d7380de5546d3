// What the embedded runtime is told at start: the scripts and their variables, the writer's
// clients, DD['damaris_env'] and the Dask worker settings, as one JSON (docs/python-insitu.md).
#pragma once

#include <string>

#include "insitu/InSitu.hpp"

namespace ecluse {

/** The JSON given to ecluse._insitu_runtime.start on this writer. */
std::string pyscript_setup(const InSituContext& context);

}  // namespace ecluse
