// The half and scaled16 encodings. Rounding uses std::nearbyint in the default rounding mode
// (to nearest, ties to even); every scaling is by a power of two, hence exact.
#include "store/CompressionCodecs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ecluse {
namespace {

constexpr double kHalfOverflow = 65520.0;  // 65504 + half its last step: rounds to infinity
constexpr double kHalfSmallestNormal = 0x1p-14;
constexpr std::uint16_t kHalfInfinity = 0x7c00;
constexpr std::uint16_t kHalfQuietNan = 0x7e00;
constexpr double kScaledSteps = 65534.0;

std::uint16_t half_magnitude(double a) noexcept {
  if (a >= kHalfOverflow) return kHalfInfinity;
  if (a < kHalfSmallestNormal) {  // subnormal: units of 2^-24; 1024 is the smallest normal
    return static_cast<std::uint16_t>(std::nearbyint(std::ldexp(a, 24)));
  }
  int exponent = 0;
  const double fraction = std::frexp(a, &exponent);  // a = fraction * 2^exponent, [0.5, 1)
  auto mantissa = static_cast<std::uint32_t>(std::nearbyint(std::ldexp(fraction, 11) - 1024));
  int biased = exponent - 1 + 15;
  if (mantissa == 1024) {  // rounded up to the next power of two
    mantissa = 0;
    ++biased;
  }
  return static_cast<std::uint16_t>((static_cast<std::uint32_t>(biased) << 10) | mantissa);
}

}  // namespace

std::uint16_t to_half(double x) noexcept {
  const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x)) return static_cast<std::uint16_t>(sign | kHalfQuietNan);
  return static_cast<std::uint16_t>(sign | half_magnitude(std::fabs(x)));
}

double from_half(std::uint16_t bits) noexcept {
  const double sign = (bits & 0x8000) != 0 ? -1.0 : 1.0;
  const int biased = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  if (biased == 0x1f) {
    return mantissa == 0 ? sign * std::numeric_limits<double>::infinity()
                         : std::numeric_limits<double>::quiet_NaN();
  }
  if (biased == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, biased - 25);
}

void FiniteRange::add(double x) noexcept {
  if (!std::isfinite(x)) {
    ++nonfinite;
    return;
  }
  lo = std::min(lo, x);
  hi = std::max(hi, x);
}

void FiniteRange::merge(const FiniteRange& other) noexcept {
  lo = std::min(lo, other.lo);
  hi = std::max(hi, other.hi);
  nonfinite += other.nonfinite;
}

ScaledRange scaled_range(const FiniteRange& range) noexcept {
  if (!(range.lo <= range.hi)) return {};
  const double spread = range.hi - range.lo;  // overflows for ranges beyond DBL_MAX
  const double factor = std::isfinite(spread) ? spread / kScaledSteps
                                              : range.hi / kScaledSteps - range.lo / kScaledSteps;
  return {range.lo, factor};
}

std::uint16_t to_scaled(double x, const ScaledRange& range) noexcept {
  if (!std::isfinite(x)) return kScaledNonFinite;
  if (range.factor == 0) return 0;
  const double steps = std::nearbyint((x - range.offset) / range.factor);
  return static_cast<std::uint16_t>(std::clamp(steps, 0.0, kScaledSteps));
}

double from_scaled(std::uint16_t code, const ScaledRange& range) noexcept {
  if (code == kScaledNonFinite) return std::numeric_limits<double>::quiet_NaN();
  return range.offset + code * range.factor;
}

}  // namespace ecluse
