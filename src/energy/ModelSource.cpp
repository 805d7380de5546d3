// Energy is integrated interval by interval: a reading every few seconds (the ticker) follows
// changes of utilization that one average over the whole run would flatten.
#include "energy/ModelSource.hpp"

#include <cmath>

#include "ecluse/Error.hpp"

namespace ecluse {

ModelSource::ModelSource(SysfsFiles files, Calibration calibration, Clock clock)
    : files_(std::move(files)), calibration_(std::move(calibration)), clock_(std::move(clock)) {
  last_ = snapshot();
  last_time_ = clock_();
}

CpuTimes ModelSource::snapshot() const {
  try {
    return CpuTimes::read(files_);
  } catch (const SysfsError& e) {
    throw Error(ECLUSE_IO_ERROR, std::string("model: ") + e.what());
  }
}

double ModelSource::power(double utilization) const {
  return calibration_.idle_watts + (calibration_.max_watts - calibration_.idle_watts) * utilization;
}

EnergyReading ModelSource::read() {
  const CpuTimes now = snapshot();
  const double time = clock_();
  last_utilization_ = CpuTimes::utilization(last_, now);
  joules_ += power(last_utilization_) * (time - last_time_);
  steal_ticks_ += now.steal - last_.steal;
  last_ = now;
  last_time_ = time;
  const auto microjoules = static_cast<std::uint64_t>(std::llround(joules_ * 1e6));
  return {name(),
          quality(),
          calibration_.id,
          time,
          {{"node", microjoules, true}},
          steal_ticks_,
          calibration_.is_default ? "default calibration: " + calibration_.origin : ""};
}

}  // namespace ecluse
