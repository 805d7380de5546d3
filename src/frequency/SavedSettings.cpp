// Newest first matters: scaling_max_freq is saved after scaling_min_freq, so on restore the
// maximum goes back up before the minimum does, and min <= max holds after every write.
#include "frequency/SavedSettings.hpp"

#include "frequency/FrequencyRestorer.hpp"

namespace ecluse {
namespace {

// What scaling_setspeed reads under any governor but userspace.
const char* const kUnsupported = "<unsupported>";

}  // namespace

SavedSettings::SavedSettings(SysfsFiles files)
    : files_(std::move(files)), owner_(FrequencyRestorer::instance().new_owner()) {}

SavedSettings::~SavedSettings() {
  FrequencyRestorer::instance().remove(owner_);
}

void SavedSettings::save(const std::string& absolute) {
  if (original(absolute) != nullptr) return;
  const std::string value = trim(files_.read(absolute));
  FrequencyRestorer::instance().add(owner_, files_.path(absolute), value);
  saved_.push_back({absolute, value, false});
}

void SavedSettings::changed(const std::string& absolute) {
  for (Saved& saved : saved_) saved.changed = saved.changed || saved.path == absolute;
}

const std::string* SavedSettings::original(const std::string& absolute) const {
  for (const Saved& saved : saved_) {
    if (saved.path == absolute) return &saved.value;
  }
  return nullptr;
}

std::vector<std::string> SavedSettings::restore() {
  std::vector<std::string> failures;
  for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
    // A refused write changed nothing; "<unsupported>" is shown again by the kernel itself.
    if (!it->changed || it->value == kUnsupported) continue;
    try {
      files_.write(it->path, it->value);
    } catch (const SysfsError& e) {
      failures.push_back(e.what());
    }
  }
  saved_.clear();
  FrequencyRestorer::instance().remove(owner_);
  return failures;
}

}  // namespace ecluse
