// NVIDIA GPUs through NVML, loaded at run time with dlopen: total energy per device in mJ since
// the driver loaded. The function table is data, so tests replace the library.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "energy/EnergySource.hpp"

namespace ecluse {

/** The NVML calls Ecluse uses; return values are nvmlReturn_t (0 = success). */
struct NvmlApi {
  std::function<int()> init;
  std::function<int()> shutdown;
  std::function<int(unsigned* count)> device_count;
  std::function<int(unsigned index, void** device)> device_handle;
  std::function<int(void* device, unsigned long long* millijoules)> total_energy;
};

/** Loads libnvidia-ml.so.1; on failure returns nothing and sets `reason`. */
std::optional<NvmlApi> load_nvml(std::string& reason);

class NvmlSource final : public EnergySource {
 public:
  /** Throws ecluse::Error (ECLUSE_IO_ERROR) when NVML has no device with an energy counter. */
  explicit NvmlSource(NvmlApi api);
  ~NvmlSource() override;
  NvmlSource(const NvmlSource&) = delete;
  NvmlSource& operator=(const NvmlSource&) = delete;

  [[nodiscard]] std::string name() const override { return "nvml"; }
  /** GPUs only: the rest of the node is not seen. */
  [[nodiscard]] EnergyQuality quality() const override { return EnergyQuality::MeasuredPartial; }
  EnergyReading read() override;

 private:
  struct Device {
    void* handle = nullptr;
    unsigned index = 0;
    std::uint64_t base = 0;  // mJ at opening
  };
  void open_devices();
  std::uint64_t energy(const Device& device) const;

  NvmlApi api_;
  std::vector<Device> devices_;
};

}  // namespace ecluse
