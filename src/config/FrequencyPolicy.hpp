// When and how far Ecluse lowers the CPU frequency of one role: parsed from the strings of the
// configuration (role, when, target) with messages that say what is allowed.
#pragma once

#include <cstdint>
#include <string>

namespace ecluse {

enum class FrequencyRole { DedicatedCore, DedicatedNode, Simulation };
enum class FrequencyWhen { Idle, Writing, Always };

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
  FrequencyRole role = FrequencyRole::DedicatedCore;
  FrequencyWhen when = FrequencyWhen::Idle;
  FrequencyTarget target;

  /** Throws ECLUSE_CONFIG_ERROR naming the attribute, the value and the allowed values. */
  static FrequencyPolicy parse(const std::string& role, const std::string& when,
                               const std::string& target);
};

const char* to_string(FrequencyRole role);
const char* to_string(FrequencyWhen when);

}  // namespace ecluse
