// Labels and sums of energy readings: one place decides what "total" means for every source.
#include "energy/EnergySource.hpp"

#include <chrono>

namespace ecluse {

const char* to_string(EnergyQuality quality) {
  switch (quality) {
    case EnergyQuality::Measured:
      return "measured";
    case EnergyQuality::MeasuredPartial:
      return "measured-partial";
    case EnergyQuality::Modelled:
      return "modelled";
  }
  return "?";
}

std::uint64_t EnergyReading::total_microjoules() const {
  std::uint64_t total = 0;
  for (const ZoneEnergy& zone : zones) total += zone.in_total ? zone.microjoules : 0;
  return total;
}

double EnergyReading::total_joules() const {
  return static_cast<double>(total_microjoules()) * 1e-6;
}

const ZoneEnergy* EnergyReading::find(const std::string& zone) const {
  for (const ZoneEnergy& z : zones) {
    if (z.zone == zone) return &z;
  }
  return nullptr;
}

double monotonic_seconds() {
  const auto now = std::chrono::steady_clock::now().time_since_epoch();
  return std::chrono::duration<double>(now).count();
}

}  // namespace ecluse
