// <log>: where and how much a rank logs; read by the configuration, used by Log.
#pragma once

#include <cstdint>
#include <string>

namespace ecluse {

struct LogConfig {
  std::string file;
  std::string level = "info";
  std::string format;
  std::uint64_t rotation_size = 0;
  bool flush = false;
};

}  // namespace ecluse
