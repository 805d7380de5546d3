// libFuzzer target: any bytes as a configuration file. Only ecluse::Error may come out
// (a clear ECLUSE_CONFIG_ERROR message); a crash, a hang or a sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "config/ConfigLoader.hpp"
#include "ecluse/Error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)ecluse::parse_config("fuzz.xml", text);
  } catch (const ecluse::Error& e) {
    if (e.status() != ECLUSE_CONFIG_ERROR) __builtin_trap();  // only configuration errors
  }
  return 0;
}
