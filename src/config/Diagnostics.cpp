// Configuration error collection.
#include "config/Diagnostics.hpp"

#include "config/Suggest.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {

void Diagnostics::error(const SourceLocation& where, const std::string& what) {
  messages_.push_back(to_string(where) + ": " + what);
}

void Diagnostics::error(const std::string& what) {
  messages_.push_back(what);
}

std::string Diagnostics::text() const {
  return join(messages_, "\n");
}

void Diagnostics::raise_if_any() const {
  if (!messages_.empty()) throw Error(ECLUSE_CONFIG_ERROR, text());
}

}  // namespace ecluse
