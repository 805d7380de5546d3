// A small leveled logger configured by <log>; one instance per runtime, no globals.
#pragma once

#include <atomic>
#include <cstdio>
#include <string>
#include <vector>

#include "core/LogConfig.hpp"

namespace ecluse {

class Log {
 public:
  /** Writes to stderr, or to "<FileName>.<rank>.log" when <log FileName> is set. */
  Log(const LogConfig& config, int rank);
  ~Log();
  Log(const Log&) = delete;
  Log& operator=(const Log&) = delete;
  void write(LogLevel level, const std::string& message);
  void info(const std::string& message) { write(LogLevel::Info, message); }
  void warning(const std::string& message) { write(LogLevel::Warning, message); }
  void error(const std::string& message) { write(LogLevel::Error, message); }
  /** Each as a warning, also on stderr when the log goes to a file (the configuration's
   * warnings: a user must see them even when the log's directory does not exist). Other
   * warnings and errors logged to a file are copied to stderr too, the first kStderrCopies. */
  void warnings_also_on_stderr(const std::vector<std::string>& messages);
  /** Into the log file only, nothing without one (a failed API call: the program has its code
   * and message; the file keeps the record, as Damaris's log does). */
  void to_file(LogLevel level, const std::string& message);
  static constexpr int kStderrCopies = 10;

 private:
  void print(std::FILE* out, LogLevel level, const std::string& message) const;
  void copy_to_stderr(LogLevel level, const std::string& message);

  LogLevel threshold_ = LogLevel::Info;
  bool flush_ = false;
  int rank_ = 0;
  std::FILE* file_ = nullptr;          // opened without following a symbolic link; null: stderr
  std::atomic<int> stderr_copies_{0};  // warnings and errors of the log file also on stderr
};

}  // namespace ecluse
