// Leveled logging to stderr or a per-rank file.
#include "core/Log.hpp"

#include <iostream>

namespace ecluse {
namespace {

LogLevel level_from(const std::string& name) {
  if (name == "trace") return LogLevel::Trace;
  if (name == "debug") return LogLevel::Debug;
  if (name == "warning") return LogLevel::Warning;
  if (name == "error") return LogLevel::Error;
  if (name == "fatal") return LogLevel::Fatal;
  return LogLevel::Info;
}

const char* label(LogLevel level) {
  static const char* names[] = {"trace", "debug", "info", "warning", "error", "fatal"};
  return names[static_cast<int>(level)];
}

}  // namespace

Log::Log(const LogConfig& config, int rank)
    : threshold_(level_from(config.level)), flush_(config.flush), rank_(rank) {
  if (!config.file.empty()) {
    file_.open(config.file + "." + std::to_string(rank) + ".log", std::ios::app);
  }
}

void Log::write(LogLevel level, const std::string& message) {
  if (level < threshold_) return;
  std::ostream& out = file_.is_open() ? static_cast<std::ostream&>(file_) : std::cerr;
  out << "[ecluse " << rank_ << "] " << label(level) << ": " << message << '\n';
  if (flush_ || level >= LogLevel::Warning) out.flush();
}

}  // namespace ecluse
