// A bare number above 1 is refused rather than guessed: 1200 could be MHz or a typo for 1.2 GHz,
// and a frequency off by a factor 1000 would be silently clamped to the hardware's range.
#include "config/FrequencyPolicy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "ecluse/Error.hpp"

namespace ecluse {
namespace {

const char* const kTargetForms = "write e.g. 1200000kHz, 1200MHz, 1.2GHz, 60% or 0.6";

struct Unit {
  const char* suffix;
  double khz;  // kHz per unit; 0 for a percentage
};
const Unit kUnits[] = {{"kHz", 1}, {"MHz", 1e3}, {"GHz", 1e6}, {"%", 0}};

[[noreturn]] void policy_error(const std::string& what, const std::string& value,
                               const std::string& hint) {
  throw Error(ECLUSE_CONFIG_ERROR, "frequency " + what + " '" + value + "' " + hint);
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

double parse_number(const std::string& text, const std::string& number) {
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || !std::isfinite(value)) {
    policy_error("target", text, std::string("is not a frequency; ") + kTargetForms);
  }
  if (value <= 0) policy_error("target", text, "must be above 0");
  return value;
}

FrequencyTarget fraction_target(const std::string& text, double fraction) {
  if (fraction > 1) policy_error("target", text, "is above 100% of the maximum frequency");
  return {true, 0, fraction};
}

FrequencyTarget unit_target(const std::string& text, const Unit& unit) {
  const std::string number = text.substr(0, text.size() - std::string(unit.suffix).size());
  const double value = parse_number(text, number);
  if (unit.khz == 0) return fraction_target(text, value / 100);
  const double khz = std::round(value * unit.khz);
  if (khz < 1) policy_error("target", text, "is below 1 kHz");
  return {false, static_cast<std::uint64_t>(khz), 1.0};
}

Role parse_role(const std::string& role) {
  for (const auto& entry : enum_names(Role{})) {
    if (role == entry.name) return entry.value;
  }
  policy_error("role", role, "is not one of dedicated-core, dedicated-node, simulation");
}

FrequencyWhen parse_when(const std::string& when) {
  for (const auto& entry : enum_names(FrequencyWhen{})) {
    if (when == entry.name) return entry.value;
  }
  policy_error("when", when, "is not one of idle, writing, always");
}

}  // namespace

FrequencyTarget FrequencyTarget::parse(const std::string& text) {
  for (const Unit& unit : kUnits) {
    if (ends_with(text, unit.suffix)) return unit_target(text, unit);
  }
  const double value = parse_number(text, text);
  if (value > 1) policy_error("target", text, std::string("has no unit; ") + kTargetForms);
  return fraction_target(text, value);
}

std::uint64_t FrequencyTarget::resolve(std::uint64_t min_khz, std::uint64_t max_khz) const {
  const double wanted =
      is_fraction ? std::round(fraction * static_cast<double>(max_khz)) : static_cast<double>(khz);
  const auto value = static_cast<std::uint64_t>(wanted);
  return std::clamp(value, min_khz, std::max(min_khz, max_khz));
}

std::string FrequencyTarget::to_string() const {
  if (!is_fraction) return std::to_string(khz) + " kHz";
  std::ostringstream text;
  text << fraction * 100 << "% of cpuinfo_max_freq";
  return text.str();
}

FrequencyPolicy FrequencyPolicy::parse(const std::string& role, const std::string& when,
                                       const std::string& target) {
  return {parse_role(role), parse_when(when), FrequencyTarget::parse(target)};
}

std::string FrequencyPolicy::describe() const {
  return std::string(name_of(role)) + " when " + std::string(name_of(when)) + " to " +
         target.to_string();
}

}  // namespace ecluse
