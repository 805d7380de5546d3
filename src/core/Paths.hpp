// Where a path leads, and whether it lies in a directory: the one test behind the output
// directory's and the action libraries' confinement.
#pragma once

#include <string>

namespace ecluse {

/** The path with symbolic links and '..' resolved as far as it exists; itself on an error. */
std::string resolved_path(const std::string& path);

/** Whether `path` is `directory` or lies below it (both already resolved; '/' holds all). */
bool is_under(const std::string& path, const std::string& directory);

}  // namespace ecluse
