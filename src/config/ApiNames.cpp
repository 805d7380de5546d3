// The C API's names per dialect, for messages.
#include "config/ApiNames.hpp"

namespace ecluse {

std::string api_call(Dialect dialect, std::string_view call) {
  return (dialect == Dialect::Damaris ? "damaris_" : "ecluse_") + std::string(call);
}

}  // namespace ecluse
