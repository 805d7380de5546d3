// Reads and writes small kernel files (sysfs, procfs) under a root-directory prefix, so that
// tests point the energy and frequency layers at fake trees and can inject open() failures.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

namespace ecluse {

/** A failed open/read/write of one file, with the errno the kernel gave. */
class SysfsError : public std::runtime_error {
 public:
  SysfsError(std::string path, int error, const std::string& what);
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  [[nodiscard]] int error() const noexcept { return error_; }

 private:
  std::string path_;
  int error_;
};

/** Files of one (possibly fake) root directory; open is replaceable for tests. */
class SysfsFiles {
 public:
  using OpenFn = std::function<int(const char* path, int flags)>;

  explicit SysfsFiles(std::string root = "/", OpenFn open_fn = {});
  /** root + absolute path, e.g. "/tmp/x" + "/sys/class/powercap" */
  [[nodiscard]] std::string path(const std::string& absolute) const;
  [[nodiscard]] std::string read(const std::string& absolute) const;
  [[nodiscard]] std::optional<std::string> try_read(const std::string& absolute) const;
  void write(const std::string& absolute, const std::string& value) const;
  [[nodiscard]] bool exists(const std::string& absolute) const;
  [[nodiscard]] const std::string& root() const noexcept { return root_; }

 private:
  int open_file(const std::string& full, int flags) const;

  std::string root_;
  OpenFn open_;
};

/** The leading unsigned integer of a kernel value ("598732067 J 1599999 us" -> 598732067). */
std::uint64_t parse_leading_uint(const std::string& text, const std::string& what);
/** text without trailing newline and blanks. */
std::string trim(const std::string& text);

}  // namespace ecluse
