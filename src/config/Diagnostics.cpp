// Configuration error collection.
#include "config/Diagnostics.hpp"

#include <algorithm>
#include <tuple>

#include "config/ConfigError.hpp"
#include "config/Limits.hpp"
#include "config/Suggest.hpp"

namespace ecluse {

bool Diagnostics::listing() const {
  return messages_.size() < limits::kListedErrors;
}

void Diagnostics::add(Message message) {
  if (messages_.size() < limits::kListedErrors) {
    messages_.push_back(std::move(message));
  } else {
    ++unlisted_;
  }
}

void Diagnostics::error(const SourceLocation& where, const std::string& what) {
  if (messages_.size() >= limits::kListedErrors) return add({});  // counted, not formatted
  add({where.line, where.column, to_string(where) + ": " + what});
}

void Diagnostics::error(const std::string& what) {
  add({0, 0, what});
}

// Checks run section by section; a user reads the file from the top.
std::vector<std::string> Diagnostics::lines() const {
  std::vector<Message> sorted = messages_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Message& a, const Message& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  std::vector<std::string> out;
  for (const Message& message : sorted) out.push_back(message.text);
  if (unlisted_ > 0) {
    out.push_back("... and " + std::to_string(unlisted_) + " more error" +
                  (unlisted_ == 1 ? "" : "s") + " (only the first " +
                  std::to_string(limits::kListedErrors) + " are listed; fix these first).");
  }
  return out;
}

std::string Diagnostics::text() const {
  return join(lines(), "\n");
}

bool Diagnostics::repeated_warning(const std::string& kind) {
  for (Warning& known : warnings_) {
    if (known.kind == kind) {
      ++known.more;
      return true;
    }
  }
  if (warnings_.size() >= limits::kListedErrors) {  // bounded, as errors are
    ++unlisted_warnings_;
    return true;
  }
  return false;
}

void Diagnostics::warning(const SourceLocation& where, const std::string& kind,
                          const std::string& what) {
  if (repeated_warning(kind)) return;
  warnings_.push_back({where.line, where.column, kind, to_string(where) + ": " + what});
}

std::vector<std::string> Diagnostics::warnings() const {
  std::vector<Warning> sorted = warnings_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Warning& a, const Warning& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  std::vector<std::string> lines;
  for (const Warning& w : sorted) {
    const std::string more =
        w.more == 0 ? "" : " (and " + std::to_string(w.more) + " more like it)";
    lines.push_back(w.text + more);
  }
  if (unlisted_warnings_ > 0) {
    lines.push_back("... and " + std::to_string(unlisted_warnings_) + " more warning(s).");
  }
  return lines;
}

void Diagnostics::raise_if_any() const {
  if (!empty()) throw ConfigError(lines());
}

}  // namespace ecluse
