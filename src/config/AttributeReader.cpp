// Typed attribute access for the configuration reader.
#include "config/AttributeReader.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <utility>

#include "config/Suggest.hpp"
#include "core/SysfsFiles.hpp"

namespace ecluse {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

bool parse_integer(const std::string& text, std::int64_t& out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end;
}

std::uint64_t unit_factor(const std::string& unit) {
  static const std::vector<std::pair<std::string, std::uint64_t>> units = {{"", 1},
                                                                           {"b", 1},
                                                                           {"k", 1000},
                                                                           {"kb", 1000},
                                                                           {"m", 1000000},
                                                                           {"mb", 1000000},
                                                                           {"g", 1000000000},
                                                                           {"gb", 1000000000},
                                                                           {"kib", 1ull << 10},
                                                                           {"mib", 1ull << 20},
                                                                           {"gib", 1ull << 30},
                                                                           {"tib", 1ull << 40}};
  for (const auto& [name, factor] : units) {
    if (name == unit) return factor;
  }
  return 0;
}

}  // namespace

std::string AttributeReader::text(const pugi::xml_node& node, const char* name,
                                  const std::string& fallback) const {
  const pugi::xml_attribute attribute = node.attribute(name);
  return attribute ? attribute.value() : fallback;
}

void AttributeReader::bad_value(const pugi::xml_node& node, const char* name,
                                const std::string& expected) const {
  const std::string value = node.attribute(name).value();
  diagnostics_.error(source_.of(node, name), "invalid value '" + value + "' for '" + name +
                                                 "' on <" + node.name() + ">; " + expected + "." +
                                                 placeholder_hint(value));
}

std::int64_t AttributeReader::integer(const pugi::xml_node& node, const char* name,
                                      std::int64_t fallback, std::int64_t minimum,
                                      std::int64_t maximum) const {
  if (!node.attribute(name)) return fallback;
  const std::string text = node.attribute(name).value();
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  const bool whole = end == text.data() + text.size();
  if (whole &&
      (error == std::errc::result_out_of_range || (error == std::errc() && value > maximum))) {
    bad_value(
        node, name,
        "expected an integer from " + std::to_string(minimum) + " to " + std::to_string(maximum));
    return fallback;
  }
  if (!whole || error != std::errc() || value < minimum) {
    bad_value(node, name, "expected an integer >= " + std::to_string(minimum));
    return fallback;
  }
  return value;
}

std::uint64_t AttributeReader::bytes(const pugi::xml_node& node, const char* name,
                                     std::uint64_t fallback) const {
  if (!node.attribute(name)) return fallback;
  const std::string value = node.attribute(name).value();
  const std::size_t digits = value.find_first_not_of("0123456789");
  std::int64_t number = 0;
  const std::uint64_t factor = unit_factor(lower(value.substr(std::min(digits, value.size()))));
  std::uint64_t size = 0;
  if (digits == 0 || factor == 0 || !parse_integer(value.substr(0, digits), number) ||
      number <= 0 || __builtin_mul_overflow(static_cast<std::uint64_t>(number), factor, &size)) {
    bad_value(node, name,
              "expected a positive size in bytes, optionally followed by a unit (B, K, KB, M, MB, "
              "G, GB, KiB, MiB, GiB or TiB), e.g. 67108864 or 64MiB");
    return fallback;
  }
  return size;
}

namespace {

// The xs:boolean attributes of Damaris's schema (Model.xsd) that Ecluse reads; the others
// (pyscript's keep-workers is a "yes"/"no" string there, prefault and summary are Ecluse's) keep
// Ecluse's reading.
bool is_damaris_boolean(std::string_view name) {
  for (const char* known : {"Flush", "enabled", "time-varying", "visualizable", "external"}) {
    if (name == known) return true;
  }
  return false;
}

}  // namespace

// libxsd's boolean: the trimmed value is true when "true" or "1", false otherwise.
bool AttributeReader::damaris_boolean(const pugi::xml_node& node, const char* name) const {
  const std::string value = trim(node.attribute(name).value());
  const bool reading = value == "true" || value == "1";
  const std::string lowered = lower(value);
  // False as meant (False, no): nothing to say.
  if (reading || lowered == "false" || lowered == "no" || value == "0") return reading;
  const bool meant = lowered == "true" || lowered == "yes";
  diagnostics_.warning(where(node, name), "damaris-boolean",
                       std::string(name) + "=\"" + value +
                           "\" reads as false, as Damaris 1.x reads it (its booleans are true, "
                           "false, 1 or 0, in lower case)" +
                           (meant ? "; write " + std::string(name) + "=\"true\" for true." : "."));
  return false;
}

bool AttributeReader::boolean(const pugi::xml_node& node, const char* name, bool fallback) const {
  if (!node.attribute(name)) return fallback;
  if (damaris_booleans_ && is_damaris_boolean(name)) return damaris_boolean(node, name);
  const std::string value = lower(node.attribute(name).value());
  if (value == "true" || value == "yes" || value == "1") return true;
  if (value == "false" || value == "no" || value == "0") return false;
  bad_value(node, name, "expected true or false");
  return fallback;
}

std::string AttributeReader::choice(const pugi::xml_node& node, const char* name,
                                    const std::vector<std::string>& allowed,
                                    const std::string& fallback) const {
  if (!node.attribute(name)) return fallback;
  const std::string value = node.attribute(name).value();
  for (const auto& option : allowed) {
    if (lower(option) == lower(value)) return option;
  }
  std::string hint = closest(value, allowed);
  hint = hint.empty() ? "expected" : "did you mean '" + hint + "'? Expected";
  bad_value(node, name, hint + " one of: " + join(allowed));
  return fallback;
}

}  // namespace ecluse
