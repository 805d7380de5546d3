#include "core/ByteText.hpp"

#include <sstream>

namespace ecluse {

std::string bytes_text(std::uint64_t bytes) {
  static const char* const units[] = {"KiB", "MiB", "GiB", "TiB"};
  std::ostringstream out;
  out << bytes << " bytes";
  if (bytes < 1024) return out.str();
  double value = static_cast<double>(bytes);
  int unit = -1;
  while (value >= 1024 && unit < 3) {
    value /= 1024;
    ++unit;
  }
  out.precision(value < 10 ? 2 : 1);
  out << std::fixed << " (" << value << ' ' << units[unit] << ')';
  return out.str();
}

std::uint64_t suggested_size(std::uint64_t bytes) {
  constexpr std::uint64_t kMiB = 1 << 20;
  return bytes <= kMiB ? bytes : (bytes + kMiB - 1) / kMiB * kMiB;
}

}  // namespace ecluse
