// Leveled logging to stderr or a per-rank file.
#include "core/Log.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <system_error>

namespace ecluse {
namespace {

// The log's directory is created if missing, as Damaris's file sink does (its examples all
// log into "log/"). A log that still cannot be opened (or is a symbolic link) falls back to
// stderr; the first rank says so once.
std::FILE* open_log(const std::string& path, int rank) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ignored;  // a failure shows as the open's error below
  if (!parent.empty()) std::filesystem::create_directories(parent, ignored);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
  std::FILE* file = fd < 0 ? nullptr : ::fdopen(fd, "a");
  const int error = errno;
  if (fd >= 0 && !file) ::close(fd);
  if (!file && rank == 0) {
    std::fprintf(stderr,
                 "[ecluse 0] warning: cannot open the log file '%s' (%s): logging to stderr; "
                 "check <log FileName> and that its directory is writable.\n",
                 path.c_str(), std::strerror(error));
  }
  return file;
}

// A log is appended to: a run that finds an earlier run's lines first says where its own begin.
void separate_from_earlier_runs(std::FILE* file, int rank) {
  struct stat status {};
  if (::fstat(::fileno(file), &status) != 0 || status.st_size == 0) return;
  char when[32] = "";
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  if (::localtime_r(&now, &local) != nullptr) {
    std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &local);
  }
  std::fprintf(file, "[ecluse %d] info: ---- a new run (process %ld, %s) appends from here ----\n",
               rank, static_cast<long>(::getpid()), when);
  std::fflush(file);
}

}  // namespace

Log::Log(const LogConfig& config, int rank)
    : threshold_(config.level), flush_(config.flush), rank_(rank) {
  if (!config.file.empty()) {
    file_ = open_log(config.file + "." + std::to_string(rank) + ".log", rank);
    if (file_) separate_from_earlier_runs(file_, rank);
  }
}

Log::~Log() {
  if (file_) std::fclose(file_);
}

void Log::write(LogLevel level, const std::string& message) {
  if (level < threshold_) return;
  std::FILE* out = file_ ? file_ : stderr;
  print(out, level, message);
  if (flush_ || level >= LogLevel::Warning) std::fflush(out);
  if (file_ && level >= LogLevel::Warning) copy_to_stderr(level, message);
}

void Log::print(std::FILE* out, LogLevel level, const std::string& message) const {
  std::fprintf(out, "[ecluse %d] %s: %s\n", rank_, std::string(name_of(level)).c_str(),
               message.c_str());
}

// Warnings and errors are what a user must see (cells no block covers read back as 0, a store
// that failed), as Damaris prints its own on stderr: the first kStderrCopies of a rank are
// also said there, then one line says where the rest are.
void Log::copy_to_stderr(LogLevel level, const std::string& message) {
  if (stderr_copies_.load(std::memory_order_relaxed) > kStderrCopies) return;
  const int copy = stderr_copies_.fetch_add(1, std::memory_order_relaxed);
  if (copy < kStderrCopies) {
    print(stderr, level, message);
  } else if (copy == kStderrCopies) {
    std::fprintf(stderr,
                 "[ecluse %d] warning: further warnings and errors of this rank are in its log "
                 "file only (<log FileName>)\n",
                 rank_);
  }
  std::fflush(stderr);
}

void Log::to_file(LogLevel level, const std::string& message) {
  if (!file_ || level < threshold_) return;
  print(file_, level, message);
  std::fflush(file_);
}

void Log::warnings_also_on_stderr(const std::vector<std::string>& messages) {
  for (const std::string& message : messages) {
    if (LogLevel::Warning >= threshold_) {
      std::FILE* out = file_ ? file_ : stderr;
      print(out, LogLevel::Warning, message);
      std::fflush(out);
    }
    if (file_) print(stderr, LogLevel::Warning, message);
  }
}

}  // namespace ecluse
