// A small leveled logger configured by <log>; one instance per runtime, no globals.
#pragma once

#include <fstream>
#include <string>

#include "core/LogConfig.hpp"

namespace ecluse {

class Log {
 public:
  /** Writes to stderr, or to "<FileName>.<rank>.log" when <log FileName> is set. */
  Log(const LogConfig& config, int rank);
  void write(LogLevel level, const std::string& message);
  void info(const std::string& message) { write(LogLevel::Info, message); }
  void warning(const std::string& message) { write(LogLevel::Warning, message); }
  void error(const std::string& message) { write(LogLevel::Error, message); }

 private:
  LogLevel threshold_ = LogLevel::Info;
  bool flush_ = false;
  int rank_ = 0;
  std::ofstream file_;
};

}  // namespace ecluse
