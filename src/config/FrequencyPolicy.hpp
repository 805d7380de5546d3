// When and how far Ecluse lowers the CPU frequency of one role: parsed from the strings of the
// configuration (role, when, target) with messages that say what is allowed.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "core/Role.hpp"

namespace ecluse {

/** When the role's CPU runs at the target: idle or waiting, writing or storing, always. */
enum class FrequencyWhen { Idle, Writing, Always };
constexpr std::array<EnumName<FrequencyWhen>, 3> enum_names(FrequencyWhen) {
  return {{{FrequencyWhen::Idle, "idle"},
           {FrequencyWhen::Writing, "writing"},
           {FrequencyWhen::Always, "always"}}};
}

/** An absolute frequency or a fraction of cpuinfo_max_freq. */
struct FrequencyTarget {
  bool is_fraction = false;
  std::uint64_t khz = 0;
  double fraction = 1.0;

  /** Parses "1200000kHz", "1200MHz", "1.2GHz", "60%" or "0.6"; throws ECLUSE_CONFIG_ERROR. */
  static FrequencyTarget parse(const std::string& text);
  /** kHz for a CPU whose hardware range is [min_khz, max_khz], clamped into it. */
  [[nodiscard]] std::uint64_t resolve(std::uint64_t min_khz, std::uint64_t max_khz) const;
  [[nodiscard]] std::string to_string() const;
};

struct FrequencyPolicy {
  Role role = Role::DedicatedCore;
  FrequencyWhen when = FrequencyWhen::Idle;
  FrequencyTarget target;

  /** Throws ECLUSE_CONFIG_ERROR naming the attribute, the value and the allowed values. */
  static FrequencyPolicy parse(const std::string& role, const std::string& when,
                               const std::string& target);
  /** "dedicated-core when idle to 50% of cpuinfo_max_freq" */
  [[nodiscard]] std::string describe() const;
};

}  // namespace ecluse
