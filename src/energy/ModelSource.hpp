// The source that always works: node power P(u) = P_idle + (P_max - P_idle) * u, with u the
// node's CPU utilization from /proc/stat between two readings.
#pragma once

#include <functional>
#include <string>

#include "core/SysfsFiles.hpp"
#include "energy/Calibration.hpp"
#include "energy/CpuTimes.hpp"
#include "energy/EnergySource.hpp"

namespace ecluse {

class ModelSource final : public EnergySource {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic

  ModelSource(SysfsFiles files, Calibration calibration, Clock clock = monotonic_seconds);
  [[nodiscard]] std::string name() const override { return "model"; }
  [[nodiscard]] EnergyQuality quality() const override { return EnergyQuality::Modelled; }
  EnergyReading read() override;

  [[nodiscard]] const Calibration& calibration() const noexcept { return calibration_; }
  /** u of the last interval, for the report. */
  [[nodiscard]] double last_utilization() const noexcept { return last_utilization_; }
  [[nodiscard]] double power(double utilization) const;

 private:
  CpuTimes snapshot() const;

  SysfsFiles files_;
  Calibration calibration_;
  Clock clock_;
  CpuTimes last_;
  double last_time_ = 0;
  double joules_ = 0;
  std::uint64_t steal_ticks_ = 0;
  double last_utilization_ = 0;
};

}  // namespace ecluse
