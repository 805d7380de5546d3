// The proxy's physics. Every expression is written in the order check_output.py evaluates
// it (and built without FMA contraction), so the output can be checked bit for bit.
#include "Atmosphere.hpp"

#include <cstddef>

namespace proxy {

namespace {

constexpr int kU = 2, kV = 3, kW = 4;
// Diffusion number 0.05 per direction (0.3 in 3-D, under the 0.5 limit); advection
// coefficient dt/(2h) = 0.05 with winds up to 1: stable (C^2 = 0.01 <= 2 * 0.05).
constexpr double kDiffusion = 0.05;
constexpr double kAdvection = 0.05;

/** A smooth bump of a global coordinate, 0 at both ends so that x and y stay periodic. */
double bump(std::int64_t g, std::int64_t n) {
  const double s = static_cast<double>(g) / static_cast<double>(n);
  return s * (1.0 - s);
}

double initial(int f, double bx, double by, double k) {
  switch (f) {
    case 0:
      return 300.0 + 160.0 * bx * by + 0.5 * k;
    case 1:
      return 1000.0 - 1.2 * k + 40.0 * bx;
    case kU:
      return 4.0 * by;
    case kV:
      return 0.5 - 2.0 * bx;
    case kW:
      return 0.5 * bx * by;
    default:
      return 0.02 * bx + 0.001 * k;
  }
}

}  // namespace

int Atmosphere::field_index(const std::string& name) {
  for (int f = 0; f < kFieldCount; ++f) {
    if (name == kNames[static_cast<size_t>(f)]) return f;
  }
  return -1;
}

Atmosphere::Atmosphere(const ProcessGrid& grid) : grid_(grid) {
  for (int f = 0; f < kFieldCount; ++f) {
    now_[static_cast<size_t>(f)].assign(grid_.volume(), 0.0);
    next_[static_cast<size_t>(f)].assign(grid_.volume(), 0.0);
    initialize(f);
  }
}

void Atmosphere::initialize(int f) {
  const auto offset = grid_.offset();
  const auto global = grid_.global();
  double* field = now_[static_cast<size_t>(f)].data();
  for (int i = 1; i <= grid_.nx(); ++i) {
    const double bx = bump(offset[0] + i - 1, global[0]);
    for (int j = 1; j <= grid_.ny(); ++j) {
      const double by = bump(offset[1] + j - 1, global[1]);
      for (int k = 0; k < grid_.nz(); ++k) field[grid_.index(i, j, k)] = initial(f, bx, by, k);
    }
  }
}

void Atmosphere::step() {
  for (auto& field : now_) grid_.exchange(field.data());
  for (int f = 0; f < kFieldCount; ++f) update(f);
  now_.swap(next_);
}

void Atmosphere::update(int f) {
  for (int i = 1; i <= grid_.nx(); ++i) {
    for (int j = 1; j <= grid_.ny(); ++j) update_column(f, i, j);
  }
}

void Atmosphere::update_column(int f, int i, int j) {
  const std::size_t base = grid_.index(i, j, 0);
  // Signed strides: c[k - sx] must point before c, not wrap around as an unsigned offset.
  const auto sx = static_cast<std::ptrdiff_t>(grid_.index(1, 0, 0));
  const auto sy = static_cast<std::ptrdiff_t>(grid_.index(0, 1, 0));
  const double* c = now_[static_cast<size_t>(f)].data() + base;
  const double* u = now_[kU].data() + base;
  const double* v = now_[kV].data() + base;
  const double* w = now_[kW].data() + base;
  double* out = next_[static_cast<size_t>(f)].data() + base;
  const int nz = grid_.nz();
  for (int k = 0; k < nz; ++k) {
    const double xp = c[k + sx], xm = c[k - sx], yp = c[k + sy], ym = c[k - sy];
    const double zp = k + 1 < nz ? c[k + 1] : c[k];  // zero gradient at the top and bottom
    const double zm = k > 0 ? c[k - 1] : c[k];
    const double lap = xp + xm + yp + ym + zp + zm - 6.0 * c[k];
    const double adv = u[k] * (xp - xm) + v[k] * (yp - ym) + w[k] * (zp - zm);
    out[k] = c[k] + (kDiffusion * lap - kAdvection * adv);
  }
}

}  // namespace proxy
