// "Did you mean" suggestions for misspelt names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ecluse {

/** The candidate closest to `word`, ignoring case, with at most max(1, size/3) edits (a swap of
 * two neighbours is one edit; words under 3 letters: case only), or "" if none is close. */
std::string closest(std::string_view word, const std::vector<std::string>& candidates);
/** "; did you mean 'x'?" or "" */
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates,
                         std::string_view quote = "'");
/** did_you_mean, or "." when nothing is close: the end of a sentence about a misspelt name. */
std::string did_you_mean_or_period(std::string_view word,
                                   const std::vector<std::string>& candidates);
/** The `name` member of every item. */
template <class T>
std::vector<std::string> names_of(const std::vector<T>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) out.push_back(item.name);
  return out;
}
/** Whether `value` looks like a template's placeholder that no one filled in: @NAME@ (CMake),
 * ${NAME} or $(NAME) (shells, make), {{ name }} (Jinja), %NAME% or _NAME_ (OPM's _DC_REGEX_). */
bool looks_like_placeholder(std::string_view value);
/** " 'v' looks like a template placeholder left unfilled: ..." when it does, else "": the end
 * of a message refusing the value. */
std::string placeholder_hint(std::string_view value);
/** "a, b, c" */
std::string join(const std::vector<std::string>& words, std::string_view separator = ", ");

}  // namespace ecluse
