// Leveled logging to stderr or a per-rank file.
#include "core/Log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <iostream>

namespace ecluse {
namespace {

// A log that cannot be opened (or is a symbolic link) falls back to stderr, as if unset.
std::FILE* open_log(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return nullptr;
  std::FILE* file = ::fdopen(fd, "a");
  if (!file) ::close(fd);
  return file;
}

}  // namespace

Log::Log(const LogConfig& config, int rank)
    : threshold_(config.level), flush_(config.flush), rank_(rank) {
  if (!config.file.empty()) file_ = open_log(config.file + "." + std::to_string(rank) + ".log");
}

Log::~Log() {
  if (file_) std::fclose(file_);
}

void Log::write(LogLevel level, const std::string& message) {
  if (level < threshold_) return;
  std::FILE* out = file_ ? file_ : stderr;
  std::fprintf(out, "[ecluse %d] %s: %s\n", rank_, std::string(name_of(level)).c_str(),
               message.c_str());
  if (flush_ || level >= LogLevel::Warning) std::fflush(out);
}

void Log::warnings_also_on_stderr(const std::vector<std::string>& messages) {
  for (const std::string& message : messages) {
    write(LogLevel::Warning, message);
    if (file_) std::fprintf(stderr, "[ecluse %d] warning: %s\n", rank_, message.c_str());
  }
}

}  // namespace ecluse
