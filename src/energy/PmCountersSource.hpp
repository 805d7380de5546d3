// Cray/HPE pm_counters (/sys/cray/pm_counters): node, CPU, memory and accelerator energy in
// joules, read consistently between two equal values of `freshness`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/SysfsFiles.hpp"
#include "energy/EnergySource.hpp"

namespace ecluse {

class PmCountersSource final : public EnergySource {
 public:
  static constexpr const char* kDirectory = "/sys/cray/pm_counters";
  static constexpr int kAttempts = 10;  // freshness moves at ~10 Hz; a read takes microseconds

  /** Throws ecluse::Error (ECLUSE_IO_ERROR) when the node has no readable pm_counters. */
  explicit PmCountersSource(SysfsFiles files);
  [[nodiscard]] std::string name() const override { return "pm_counters"; }
  [[nodiscard]] EnergyQuality quality() const override { return EnergyQuality::Measured; }
  EnergyReading read() override;

 private:
  struct Counter {
    std::string file;  // energy, cpu_energy, ...
    std::string zone;  // node, cpu, memory, accel
    std::uint64_t base = 0;
    std::uint64_t last = 0;
    std::uint64_t accumulated = 0;  // joules counted before the last base reset
  };
  struct Snapshot {
    std::uint64_t startup = 0;
    std::vector<std::uint64_t> values;
  };

  std::uint64_t read_value(const std::string& file) const;
  Snapshot consistent_snapshot() const;
  bool try_snapshot(Snapshot& snapshot) const;
  void reset_base(const Snapshot& snapshot);
  bool went_backwards(const Snapshot& snapshot) const;
  void advance(const Snapshot& snapshot);
  EnergyReading make_reading() const;

  SysfsFiles files_;
  std::vector<Counter> counters_;
  std::uint64_t startup_ = 0;
  std::string note_;
};

}  // namespace ecluse
