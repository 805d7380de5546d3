// Leveled logging to stderr or a per-rank file.
#include "core/Log.hpp"

#include <iostream>

namespace ecluse {

Log::Log(const LogConfig& config, int rank)
    : threshold_(config.level), flush_(config.flush), rank_(rank) {
  if (!config.file.empty()) {
    file_.open(config.file + "." + std::to_string(rank) + ".log", std::ios::app);
  }
}

void Log::write(LogLevel level, const std::string& message) {
  if (level < threshold_) return;
  std::ostream& out = file_.is_open() ? static_cast<std::ostream&>(file_) : std::cerr;
  out << "[ecluse " << rank_ << "] " << name_of(level) << ": " << message << '\n';
  if (flush_ || level >= LogLevel::Warning) out.flush();
}

}  // namespace ecluse
