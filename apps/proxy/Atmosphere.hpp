// The proxy's physics: six fields of a CM1-like atmosphere, advected by the local wind and
// diffused (forward Euler, 7-point stencil; periodic in x and y, zero gradient in z).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "ProcessGrid.hpp"

namespace proxy {

class Atmosphere {
 public:
  static constexpr int kFieldCount = 6;
  /** The fields, in the order of their index; also the names of the Ecluse variables. */
  static constexpr std::array<const char*, kFieldCount> kNames = {"temperature", "pressure", "u",
                                                                  "v",           "w",        "qv"};
  /** Index of a field name, or -1. */
  static int field_index(const std::string& name);

  /** Sets the initial condition, a function of the global coordinates only. */
  explicit Atmosphere(const ProcessGrid& grid);

  /** Exchanges the halos and advances every field by one time step. */
  void step();
  /** A field with its ghost layer, laid out as ProcessGrid::index. */
  [[nodiscard]] const double* field(int f) const { return now_[static_cast<size_t>(f)].data(); }

 private:
  void initialize(int f);
  void update(int f);
  void update_column(int f, int i, int j);

  const ProcessGrid& grid_;
  std::array<std::vector<double>, kFieldCount> now_;
  std::array<std::vector<double>, kFieldCount> next_;
};

}  // namespace proxy
