// A configuration refused for one or more problems, each kept as its own message so that
// ecluse-check lists them one per line (and per JSON entry); what() joins them, one a line.
#pragma once

#include <string>
#include <vector>

#include "config/Suggest.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {

class ConfigError : public Error {
 public:
  explicit ConfigError(std::vector<std::string> messages)
      : Error(ECLUSE_CONFIG_ERROR, join(messages, "\n")), messages_(std::move(messages)) {}
  /** Each problem, "file:line:col: what", in the order of the file. */
  [[nodiscard]] const std::vector<std::string>& messages() const noexcept { return messages_; }

 private:
  std::vector<std::string> messages_;
};

}  // namespace ecluse
