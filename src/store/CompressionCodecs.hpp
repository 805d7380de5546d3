// The 16-bit encodings of floating-point values made by the HDF5 store's lossy compressions:
// IEEE binary16 (half) and integers scaled between a dataset's minimum and maximum (scaled16).
#pragma once

#include <cstdint>
#include <limits>

namespace ecluse {

/** IEEE binary16 of x, rounded to nearest even: NaN stays NaN, infinities stay infinite,
 * |x| >= 65520 becomes infinite, |x| < 2^-25 becomes zero (sign kept). */
std::uint16_t to_half(double x) noexcept;
/** The value of an IEEE binary16 (exact). */
double from_half(std::uint16_t bits) noexcept;

/** The code of non-finite values (NaN, +Inf, -Inf) in scaled16 data: read back as NaN. */
inline constexpr std::uint16_t kScaledNonFinite = 65535;

/** value = offset + code * factor for codes 0..65534. */
struct ScaledRange {
  double offset = 0;
  double factor = 0;
};

/** Smallest and largest finite value seen so far (empty when lo > hi), and how many values were
 * not finite. */
struct FiniteRange {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  std::uint64_t nonfinite = 0;
  void add(double x) noexcept;
  void merge(const FiniteRange& other) noexcept;
};

/** The scale of a range: factor = (hi - lo) / 65534, 0 when the range is one value or empty. */
ScaledRange scaled_range(const FiniteRange& range) noexcept;
/** The code of x: round((x - offset) / factor) within 0..65534, kScaledNonFinite if x is not
 * finite. The absolute error of a decoded finite value is at most factor / 2 (+ rounding). */
std::uint16_t to_scaled(double x, const ScaledRange& range) noexcept;
/** The value of a code (NaN for kScaledNonFinite). */
double from_scaled(std::uint16_t code, const ScaledRange& range) noexcept;

}  // namespace ecluse
