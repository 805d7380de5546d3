// Values of sysfs files saved before their first change, put back newest first; they are also
// handed to the FrequencyRestorer so that a fatal signal puts them back too.
#pragma once

#include <string>
#include <vector>

#include "core/SysfsFiles.hpp"

namespace ecluse {

class SavedSettings {
 public:
  explicit SavedSettings(SysfsFiles files);
  ~SavedSettings();
  SavedSettings(const SavedSettings&) = delete;
  SavedSettings& operator=(const SavedSettings&) = delete;

  /** Reads and keeps the file's value unless already kept; throws SysfsError. */
  void save(const std::string& absolute);
  /** Marks a kept file as changed: restore() writes back changed files only. */
  void changed(const std::string& absolute);
  /** The kept value, or nullptr. */
  [[nodiscard]] const std::string* original(const std::string& absolute) const;
  /** Writes every kept value back, newest first; returns one message per failed write. */
  std::vector<std::string> restore();
  [[nodiscard]] const SysfsFiles& files() const noexcept { return files_; }

 private:
  SysfsFiles files_;
  int owner_;
  struct Saved {
    std::string path;  // absolute, under files_' root
    std::string value;
    bool changed = false;
  };
  std::vector<Saved> saved_;
};

}  // namespace ecluse
