// Edit distance for "did you mean" suggestions.
#include "config/Suggest.hpp"

#include "config/Limits.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <utility>

namespace ecluse {
namespace {

bool same_letter(char a, char b) {
  return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
}

// Optimal string alignment: like Levenshtein, but swapping two neighbours costs one edit, the
// most common typo ("WIDHT" for "WIDTH").
std::size_t distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    before.swap(previous);
    previous.swap(row);
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = same_letter(a[i - 1], b[j - 1]) ? 0 : 1;
      row[j] = std::min({previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && same_letter(a[i - 1], b[j - 2]) && same_letter(a[i - 2], b[j - 1])) {
        row[j] = std::min(row[j], before[j - 2] + 1);
      }
    }
  }
  return row[b.size()];
}

}  // namespace

std::string closest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  if (word.size() > limits::kSuggestedWord) return best;  // the distance is quadratic
  // One- and two-letter names differ from any other short name by one edit: only a difference
  // of case is worth suggesting for them.
  const std::size_t limit = word.size() < 3 ? 0 : std::max<std::size_t>(1, word.size() / 3);
  std::size_t best_distance = limit + 1;
  for (const auto& candidate : candidates) {
    const std::size_t d = distance(word, candidate);
    if (d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates,
                         std::string_view quote) {
  const std::string best = closest(word, candidates);
  if (best.empty()) return "";
  return "; did you mean " + std::string(quote) + best + std::string(quote) + "?";
}

std::string did_you_mean_or_period(std::string_view word,
                                   const std::vector<std::string>& candidates) {
  const std::string hint = did_you_mean(word, candidates);
  return hint.empty() ? "." : hint;
}

std::string join(const std::vector<std::string>& words, std::string_view separator) {
  std::string out;
  for (const auto& word : words) {
    if (!out.empty()) out += separator;
    out += word;
  }
  return out;
}

namespace {

bool identifier(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '_';
  });
}

}  // namespace

// Searched in the whole value too, since placeholders stand inside paths (_PATH_REGEX_/out).
bool looks_like_placeholder(std::string_view value) {
  for (const auto& [open, close] : {std::pair<std::string_view, std::string_view>{"@", "@"},
                                    {"${", "}"},
                                    {"$(", ")"},
                                    {"{{", "}}"},
                                    {"%", "%"}}) {
    const std::size_t start = value.find(open);
    if (start == std::string_view::npos) continue;
    const std::size_t end = value.find(close, start + open.size());
    if (end != std::string_view::npos && end > start + open.size()) return true;
  }
  return value.size() > 2 && value[0] == '_' &&
         std::isalpha(static_cast<unsigned char>(value[1])) && identifier(value);
}

std::string placeholder_hint(std::string_view value) {
  if (!looks_like_placeholder(value)) return "";
  return " '" + std::string(value) +
         "' looks like a template placeholder left unfilled: give the file its template "
         "generates, or put the value in its place.";
}

}  // namespace ecluse
