// Configuration error collection.
#include "config/Diagnostics.hpp"

#include <algorithm>
#include <tuple>

#include "config/Suggest.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {

void Diagnostics::error(const SourceLocation& where, const std::string& what) {
  messages_.push_back({where.line, where.column, to_string(where) + ": " + what});
}

void Diagnostics::error(const std::string& what) {
  messages_.push_back({0, 0, what});
}

// Checks run section by section; a user reads the file from the top.
std::string Diagnostics::text() const {
  std::vector<Message> sorted = messages_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Message& a, const Message& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  std::vector<std::string> lines;
  for (const Message& message : sorted) lines.push_back(message.text);
  return join(lines, "\n");
}

void Diagnostics::raise_if_any() const {
  if (!messages_.empty()) throw Error(ECLUSE_CONFIG_ERROR, text());
}

}  // namespace ecluse
