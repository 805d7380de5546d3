// NVML's counter is 64-bit mJ since driver load, so no wrap handling: the base is taken once.
// dlopen keeps Ecluse free of a link-time dependency on the NVIDIA driver.
#include "energy/NvmlSource.hpp"

#include <dlfcn.h>

#include "ecluse/Error.hpp"

namespace ecluse {
namespace {

const char* const kLibrary = "libnvidia-ml.so.1";

using InitFn = int (*)();
using CountFn = int (*)(unsigned*);
using HandleFn = int (*)(unsigned, void**);
using EnergyFn = int (*)(void*, unsigned long long*);

template <class Fn>
Fn symbol(void* library, const char* name, std::string& missing) {
  void* address = dlsym(library, name);
  if (address == nullptr) missing += (missing.empty() ? "" : ", ") + std::string(name);
  return reinterpret_cast<Fn>(address);
}

std::string check(int status, const std::string& call) {
  return status == 0 ? "" : call + " returned NVML error " + std::to_string(status);
}

}  // namespace

std::optional<NvmlApi> load_nvml(std::string& reason) {
  void* library = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* error = dlerror();
    reason = std::string(kLibrary) + " not found (" + (error ? error : "?") + ")";
    return std::nullopt;
  }
  std::string missing;
  auto init = symbol<InitFn>(library, "nvmlInit_v2", missing);
  auto shutdown = symbol<InitFn>(library, "nvmlShutdown", missing);
  auto count = symbol<CountFn>(library, "nvmlDeviceGetCount_v2", missing);
  auto handle = symbol<HandleFn>(library, "nvmlDeviceGetHandleByIndex_v2", missing);
  auto energy = symbol<EnergyFn>(library, "nvmlDeviceGetTotalEnergyConsumption", missing);
  if (!missing.empty()) {
    reason = std::string(kLibrary) + " lacks " + missing;
    return std::nullopt;  // the library stays loaded: unloading NVML is not worth the risk
  }
  return NvmlApi{init, shutdown, count, handle, energy};
}

NvmlSource::NvmlSource(NvmlApi api) : api_(std::move(api)) {
  if (std::string error = check(api_.init(), "nvmlInit"); !error.empty()) {
    throw Error(ECLUSE_IO_ERROR, "nvml: " + error);
  }
  try {
    open_devices();
  } catch (...) {
    api_.shutdown();  // the destructor does not run for a throwing constructor
    throw;
  }
}

void NvmlSource::open_devices() {
  unsigned count = 0;
  if (api_.device_count(&count) != 0 || count == 0) throw Error(ECLUSE_IO_ERROR, "nvml: no GPU");
  for (unsigned i = 0; i < count; ++i) {
    Device device;
    if (api_.device_handle(i, &device.handle) != 0) continue;
    device.index = i;
    device.base = energy(device);
    devices_.push_back(device);
  }
}

NvmlSource::~NvmlSource() {
  api_.shutdown();
}

std::uint64_t NvmlSource::energy(const Device& device) const {
  unsigned long long millijoules = 0;
  const int status = api_.total_energy(device.handle, &millijoules);
  if (status != 0) {
    throw Error(ECLUSE_IO_ERROR, "nvml: " + check(status, "nvmlDeviceGetTotalEnergyConsumption") +
                                     " for GPU " + std::to_string(device.index));
  }
  return millijoules;
}

EnergyReading NvmlSource::read() {
  EnergyReading reading{name(), quality(), "", monotonic_seconds(), {}, 0, ""};
  for (const Device& device : devices_) {
    const std::uint64_t used = energy(device) - device.base;
    reading.zones.push_back({"gpu-" + std::to_string(device.index), used * 1000, true});
  }
  return reading;
}

}  // namespace ecluse
