// Small-file I/O with errno kept, through open/read/write so that a test's open hook sees every
// access; values are a few bytes, so one read of a fixed buffer is enough.
#include "core/SysfsFiles.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "ecluse/Error.hpp"

namespace ecluse {
namespace {

std::string join_root(const std::string& root, const std::string& absolute) {
  if (root.empty() || root == "/") return absolute;
  const bool slash = root.back() == '/';
  return (slash ? root.substr(0, root.size() - 1) : root) + absolute;
}

std::string errno_text(const std::string& verb, const std::string& full, int error) {
  return "cannot " + verb + " " + full + ": " + std::strerror(error);
}

std::string read_all(int fd, const std::string& full) {
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) return text;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw SysfsError(full, errno, errno_text("read", full, errno));
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

}  // namespace

SysfsError::SysfsError(std::string path, int error, const std::string& what)
    : std::runtime_error(what), path_(std::move(path)), error_(error) {}

SysfsFiles::SysfsFiles(std::string root, OpenFn open_fn)
    : root_(std::move(root)), open_(std::move(open_fn)) {}

std::string SysfsFiles::path(const std::string& absolute) const {
  return join_root(root_, absolute);
}

int SysfsFiles::open_file(const std::string& full, int flags) const {
  const int fd = open_ ? open_(full.c_str(), flags) : ::open(full.c_str(), flags);
  if (fd < 0) {
    const int error = errno;
    throw SysfsError(full, error, errno_text("open", full, error));
  }
  return fd;
}

std::string SysfsFiles::read(const std::string& absolute) const {
  const std::string full = path(absolute);
  const int fd = open_file(full, O_RDONLY | O_CLOEXEC);
  try {
    std::string text = read_all(fd, full);
    ::close(fd);
    return text;
  } catch (...) {
    ::close(fd);
    throw;
  }
}

std::optional<std::string> SysfsFiles::try_read(const std::string& absolute) const {
  try {
    return read(absolute);
  } catch (const SysfsError&) {
    return std::nullopt;
  }
}

void SysfsFiles::write(const std::string& absolute, const std::string& value) const {
  const std::string full = path(absolute);
  const int fd = open_file(full, O_WRONLY | O_TRUNC | O_CLOEXEC);
  const ssize_t n = ::write(fd, value.data(), value.size());
  const int error = errno;
  ::close(fd);
  if (n < 0) throw SysfsError(full, error, errno_text("write", full, error));
  if (static_cast<std::size_t>(n) != value.size()) {
    throw SysfsError(full, EIO, "short write to " + full);
  }
}

bool SysfsFiles::exists(const std::string& absolute) const {
  std::error_code ignored;
  return std::filesystem::exists(path(absolute), ignored);
}

std::uint64_t parse_leading_uint(const std::string& text, const std::string& what) {
  std::size_t at = 0;
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
  std::uint64_t value = 0;
  const std::size_t first = at;
  for (; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at) {
    value = value * 10 + static_cast<std::uint64_t>(text[at] - '0');
  }
  if (at == first) {
    throw Error(ECLUSE_IO_ERROR, what + " holds '" + trim(text) + "', not an unsigned integer");
  }
  return value;
}

std::string trim(const std::string& text) {
  const auto end = text.find_last_not_of(" \t\r\n");
  const auto begin = text.find_first_not_of(" \t\r\n");
  return end == std::string::npos ? "" : text.substr(begin, end - begin + 1);
}

}  // namespace ecluse
