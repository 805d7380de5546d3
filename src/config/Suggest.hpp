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
/** "a, b, c" */
std::string join(const std::vector<std::string>& words, std::string_view separator = ", ");

}  // namespace ecluse
