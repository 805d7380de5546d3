// Writing the trace: %.17g, so that a reader gets back the very doubles the report summarised.
#include "accounting/TraceFile.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ecluse {

TraceFile::TraceFile(const std::string& path, const std::string& header, Warn warn)
    : path_(path), warn_(std::move(warn)) {
  // Not through a symbolic link: the trace is written where it is named, nowhere else.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd >= 0) file_ = ::fdopen(fd, "w");
  if (!file_) {
    if (fd >= 0) ::close(fd);
    warn_("the iteration trace " + path + " could not be opened (" + std::strerror(errno) +
          "); the run goes on without it: check the directory of <report trace> or ECLUSE_TRACE.");
    return;
  }
  std::fprintf(file_, "# %s\n%s\n", header.c_str(), kColumns);
}

TraceFile::~TraceFile() {
  if (file_) std::fclose(file_);
}

void TraceFile::write(const IterationRecord& r) {
  if (!file_) return;
  std::fprintf(file_, "%d,%d,%.17g,%.17g,%d,%.17g,%.17g,%.17g\n", r.iteration, r.ended ? 1 : 0,
               r.write_seconds, r.bytes, r.stored ? 1 : 0, r.store_seconds, r.stored_blocks,
               r.store_errors);
}

void TraceFile::close() {
  if (!file_) return;
  const bool failed = std::ferror(file_) != 0;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (failed || !closed) {
    warn_("the iteration trace " + path_ +
          " is incomplete: writing it failed (disk full?); the run report's summaries are "
          "complete.");
  }
}

}  // namespace ecluse
