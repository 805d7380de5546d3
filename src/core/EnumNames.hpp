// The names of an enumeration as data: the configuration parser turns names into values with
// them, messages and the report turn values back into names. Aliases share a value.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace ecluse {

template <class E>
struct EnumName {
  E value;
  std::string_view name;
};

/** Declares the table of names of E (found by argument-dependent lookup as enum_names(E{})). */
template <class E>
concept NamedEnum = requires {
  enum_names(E{});
};

/** The first name of `value` in its table (the canonical one; aliases come after it). */
template <NamedEnum E>
constexpr std::string_view name_of(E value) {
  for (const auto& entry : enum_names(E{})) {
    if (entry.value == value) return entry.name;
  }
  return "?";
}

/** Every name of E, aliases included, in table order. */
template <NamedEnum E>
std::vector<std::string> names_of_enum() {
  std::vector<std::string> names;
  for (const auto& entry : enum_names(E{})) names.emplace_back(entry.name);
  return names;
}

}  // namespace ecluse
