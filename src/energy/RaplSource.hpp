// Intel/AMD RAPL through powercap (/sys/class/powercap/intel-rapl:N[:M]): zones keyed by their
// `name`, wraps of energy_uj folded into 64-bit accumulators.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/SysfsFiles.hpp"
#include "energy/EnergySource.hpp"

namespace ecluse {

class RaplSource final : public EnergySource {
 public:
  static constexpr const char* kDirectory = "/sys/class/powercap";

  /** Throws ecluse::Error (ECLUSE_IO_ERROR) when there is no zone or energy_uj is unreadable;
   * on EACCES the message names the file and the fixes. */
  explicit RaplSource(SysfsFiles files);
  [[nodiscard]] std::string name() const override { return "rapl"; }
  /** Packages + DRAM are not the whole node (fans, disks, network, power supply losses). */
  [[nodiscard]] EnergyQuality quality() const override { return EnergyQuality::MeasuredPartial; }
  EnergyReading read() override;

  /** Counter difference across at most one wrap of a counter that wraps at max_range. */
  static std::uint64_t wrapped_delta(std::uint64_t previous, std::uint64_t current,
                                     std::uint64_t max_range);

 private:
  struct Zone {
    std::string key;        // "package-0", "package-0/dram", "psys", ...
    std::string directory;  // "/sys/class/powercap/intel-rapl:0:0"
    std::uint64_t max_range = 0;
    std::uint64_t last = 0;
    std::uint64_t accumulated = 0;
    bool in_total = false;
  };

  void discover();
  Zone make_zone(const std::string& entry) const;
  std::string zone_name(const std::string& entry) const;
  std::uint64_t read_energy(const Zone& zone) const;

  SysfsFiles files_;
  std::vector<Zone> zones_;
};

}  // namespace ecluse
