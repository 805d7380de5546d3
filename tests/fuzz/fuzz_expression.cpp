// libFuzzer target: any bytes as a layout expression, parsed then evaluated with parameters
// A=7, B=-3, ZERO=0. Only ExpressionError may come out.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "config/Expression.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const ecluse::Expression e = ecluse::Expression::parse(text);
    (void)e.names();
    (void)e.evaluate([](std::string_view name) -> std::optional<std::int64_t> {
      if (name == "A") return 7;
      if (name == "B") return -3;
      if (name == "ZERO") return 0;
      return std::nullopt;
    });
  } catch (const ecluse::ExpressionError&) {
  }
  return 0;
}
