// The interface every energy source implements (pm_counters, RAPL, NVML, the model) and the
// reading it returns: accumulated joules per zone, always labelled with source and quality.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ecluse {

/** How much an energy figure can be trusted: never sum different qualities silently. */
enum class EnergyQuality { Measured, MeasuredPartial, Modelled };
const char* to_string(EnergyQuality quality);

/** Energy of one zone (node, package-0, package-0/dram, gpu-0, ...) since the source opened. */
struct ZoneEnergy {
  std::string zone;
  std::uint64_t microjoules = 0;  // 64-bit accumulator: hardware counters wrap, this does not
  bool in_total = true;           // false for zones nested in or overlapping counted ones
  [[nodiscard]] double joules() const { return static_cast<double>(microjoules) * 1e-6; }
};

/** One reading; energies are accumulated since the source was opened. */
struct EnergyReading {
  std::string source;  // "pm_counters", "rapl", "nvml", "model"
  EnergyQuality quality = EnergyQuality::Modelled;
  std::string calibration;  // model: the calibration id; empty for measured sources
  double timestamp = 0;     // seconds on the source's monotonic clock
  std::vector<ZoneEnergy> zones;
  std::uint64_t steal_ticks = 0;  // model: CPU time stolen by the hypervisor, kept out of u
  std::string note;               // e.g. a controller restart seen by pm_counters
  /** Sum of the zones marked in_total. */
  [[nodiscard]] std::uint64_t total_microjoules() const;
  [[nodiscard]] double total_joules() const;
  [[nodiscard]] const ZoneEnergy* find(const std::string& zone) const;
};

/** A source of node energy; read() is not thread-safe (EnergyTicker serializes it). */
class EnergySource {
 public:
  virtual ~EnergySource() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  [[nodiscard]] virtual EnergyQuality quality() const = 0;
  /** Reads the counters and returns the energy accumulated since construction; throws
   * ecluse::Error when the counters cannot be read. */
  virtual EnergyReading read() = 0;
};

/** Seconds on CLOCK_MONOTONIC, the clock of every reading's timestamp. */
double monotonic_seconds();

}  // namespace ecluse
