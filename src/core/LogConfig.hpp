// <log>: where and how much a rank logs; read by the configuration, used by Log.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "core/EnumNames.hpp"

namespace ecluse {

enum class LogLevel { Trace, Debug, Info, Warning, Error, Fatal };

constexpr std::array<EnumName<LogLevel>, 6> enum_names(LogLevel) {
  return {{{LogLevel::Trace, "trace"},
           {LogLevel::Debug, "debug"},
           {LogLevel::Info, "info"},
           {LogLevel::Warning, "warning"},
           {LogLevel::Error, "error"},
           {LogLevel::Fatal, "fatal"}}};
}

struct LogConfig {
  std::string file;
  LogLevel level = LogLevel::Info;
  std::string format;
  std::uint64_t rotation_size = 0;
  bool flush = false;
};

}  // namespace ecluse
