// Combining and naming counters.
#include "transport/Statistic.hpp"

#include <algorithm>

namespace ecluse {

double combine(Statistic key, double a, double b) {
  switch (info_of(key).combine) {
    case Combine::Max:
      return std::max(a, b);
    case Combine::Min:
      return std::min(a, b);
    default:
      return a + b;
  }
}

std::map<std::string, double> by_name(const Statistics& statistics) {
  std::map<std::string, double> named;
  for (const auto& [key, value] : statistics) named[std::string(info_of(key).name)] = value;
  return named;
}

}  // namespace ecluse
