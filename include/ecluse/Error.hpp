// The exception type of Ecluse's C++ API; the C API turns it into an error code.
#pragma once

#include <stdexcept>
#include <string>

#include "ecluse/ecluse.h"

namespace ecluse {

/** An error with a status code from ecluse.h and a message meant for the user. */
class Error : public std::runtime_error {
 public:
  Error(ecluse_status status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  [[nodiscard]] ecluse_status status() const noexcept { return status_; }

 private:
  ecluse_status status_;
};

}  // namespace ecluse
