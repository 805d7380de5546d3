// Where a path leads, and whether it lies in a directory.
#include "core/Paths.hpp"

#include <filesystem>
#include <system_error>

namespace ecluse {

std::string resolved_path(const std::string& path) {
  std::error_code error;
  const std::string resolved = std::filesystem::weakly_canonical(path, error).string();
  return error ? path : resolved;
}

bool is_under(const std::string& path, const std::string& directory) {
  return path == directory || path.rfind(directory + (directory.ends_with('/') ? "" : "/"), 0) == 0;
}

}  // namespace ecluse
