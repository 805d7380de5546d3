// Parameter values and layout evaluation.
#include "config/Parameters.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "ecluse/Error.hpp"

namespace ecluse {
namespace {

template <class T>
std::vector<unsigned char> bytes_of(T value) {
  std::vector<unsigned char> out(sizeof(T));
  std::memcpy(out.data(), &value, sizeof(T));
  return out;
}

template <class T>
T value_of(const std::vector<unsigned char>& bytes) {
  T value{};
  std::memcpy(&value, bytes.data(), sizeof(T));
  return value;
}

std::pair<std::int64_t, std::int64_t> integer_range(DataType type) {
  switch (type) {
    case DataType::Int8:
      return {std::numeric_limits<std::int8_t>::min(), std::numeric_limits<std::int8_t>::max()};
    case DataType::Int16:
      return {std::numeric_limits<std::int16_t>::min(), std::numeric_limits<std::int16_t>::max()};
    case DataType::Int32:
      return {std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()};
    default:
      return {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()};
  }
}

std::uint64_t unsigned_max(DataType type) {
  return type == DataType::UInt64 ? std::numeric_limits<std::uint64_t>::max()
                                  : (std::uint64_t{1} << (8 * data_type_size(type))) - 1;
}

// Digits only: from_chars of an unsigned type refuses a sign, so "-1" is refused, not wrapped.
std::optional<std::vector<unsigned char>> parse_unsigned(DataType type, const std::string& text) {
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || v > unsigned_max(type)) {
    return std::nullopt;
  }
  switch (type) {
    case DataType::UInt8:
      return bytes_of(static_cast<std::uint8_t>(v));
    case DataType::UInt16:
      return bytes_of(static_cast<std::uint16_t>(v));
    case DataType::UInt32:
      return bytes_of(static_cast<std::uint32_t>(v));
    default:
      return bytes_of(v);
  }
}

std::optional<std::vector<unsigned char>> parse_integer(DataType type, const std::string& text) {
  if (is_unsigned(type)) return parse_unsigned(type, text);
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  const auto [low, high] = integer_range(type);
  if (v < low || v > high) return std::nullopt;
  switch (type) {
    case DataType::Int8:
      return bytes_of(static_cast<std::int8_t>(v));
    case DataType::Int16:
      return bytes_of(static_cast<std::int16_t>(v));
    case DataType::Int32:
      return bytes_of(static_cast<std::int32_t>(v));
    default:
      return bytes_of(v);
  }
}

std::optional<std::vector<unsigned char>> parse_value(DataType type, const std::string& text) {
  if (type == DataType::String) return std::vector<unsigned char>(text.begin(), text.end());
  if (is_integer(type)) return parse_integer(type, text);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) return std::nullopt;
  // A number too large for the type is refused, not stored as infinity ("inf" is taken).
  if (errno == ERANGE && std::isinf(v)) return std::nullopt;
  if (type == DataType::Float32) {
    if (std::isfinite(v) && std::fabs(v) > std::numeric_limits<float>::max()) return std::nullopt;
    return bytes_of(static_cast<float>(v));
  }
  return bytes_of(v);
}

std::uint64_t as_unsigned(DataType type, const std::vector<unsigned char>& bytes) {
  switch (type) {
    case DataType::UInt8:
      return value_of<std::uint8_t>(bytes);
    case DataType::UInt16:
      return value_of<std::uint16_t>(bytes);
    case DataType::UInt32:
      return value_of<std::uint32_t>(bytes);
    default:
      return value_of<std::uint64_t>(bytes);
  }
}

// A uint64 above the largest int64 has no value in a layout's (signed 64-bit) arithmetic.
std::optional<std::int64_t> as_integer(DataType type, const std::vector<unsigned char>& bytes) {
  switch (type) {
    case DataType::Int8:
      return value_of<std::int8_t>(bytes);
    case DataType::Int16:
      return value_of<std::int16_t>(bytes);
    case DataType::Int32:
      return value_of<std::int32_t>(bytes);
    case DataType::Int64:
      return value_of<std::int64_t>(bytes);
    default: {
      const std::uint64_t v = as_unsigned(type, bytes);
      if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return std::nullopt;
      }
      return static_cast<std::int64_t>(v);
    }
  }
}

std::string expected_value(DataType type) {
  if (type == DataType::Float32) return "a number such as 0.5, -2 or 1e-3, at most 3.4e38";
  if (!is_integer(type)) return "a number such as 0.5, -2 or 1e-3, at most 1.8e308";
  if (is_unsigned(type)) return "a whole number from 0 to " + std::to_string(unsigned_max(type));
  const auto [low, high] = integer_range(type);
  return "a whole number from " + std::to_string(low) + " to " + std::to_string(high);
}

[[noreturn]] void size_mismatch(std::string_view name, DataType type, std::size_t needed,
                                std::size_t given, bool at_least) {
  const std::string n = std::to_string(needed);
  throw Error(ECLUSE_ARGUMENT_ERROR, "parameter '" + std::string(name) + "' is of type " +
                                         std::string(data_type_name(type)) + " (" + n +
                                         " bytes) but the buffer has " + std::to_string(given) +
                                         " bytes; pass a buffer of " +
                                         (at_least ? "at least " : "exactly ") + n + " bytes.");
}

}  // namespace

Parameters::Parameters(const Config& config, Diagnostics& diagnostics) {
  for (const Parameter& p : config.parameters) {
    auto bytes = parse_value(p.type, p.value);
    const bool valid = bytes.has_value();
    if (!valid) {
      diagnostics.error(p.where, "parameter '" + p.name + "' has value '" + p.value +
                                     "' which is not a valid " +
                                     std::string(data_type_name(p.type)) + "; give " +
                                     expected_value(p.type) + ".");
      bytes = std::vector<unsigned char>(data_type_size(p.type), 0);
    }
    auto [it, inserted] = values_.try_emplace(p.name, Value{&p, std::move(*bytes), valid});
    if (!inserted) {
      diagnostics.error(p.where, "duplicate parameter '" + p.name + "' (first defined at " +
                                     to_string(it->second.declaration->where) +
                                     "); rename or remove one of them.");
    }
  }
}

const Parameters::Value* Parameters::find(std::string_view name, std::string_view scope) const {
  if (!scope.empty()) {
    auto it = values_.find(std::string(scope) + std::string(name));
    if (it != values_.end()) return &it->second;
  }
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

Parameters::Value& Parameters::existing(std::string_view name) {
  auto it = values_.find(name);
  if (it == values_.end()) {
    throw Error(ECLUSE_UNDEFINED_PARAMETER,
                "parameter '" + std::string(name) + "' is not declared in the configuration");
  }
  return it->second;
}

std::optional<std::int64_t> Parameters::integer(std::string_view name,
                                                std::string_view scope) const {
  const Value* v = find(name, scope);
  if (!v || !v->valid || !is_integer(v->declaration->type)) return std::nullopt;
  return as_integer(v->declaration->type, v->bytes);
}

std::string Parameters::layout_problem(std::string_view name, std::string_view scope) const {
  const Value* v = find(name, scope);
  if (!v || !v->valid || !is_unsigned(v->declaration->type) || integer(name, scope)) return "";
  return "parameter '" + std::string(name) + "' is " +
         std::to_string(as_unsigned(v->declaration->type, v->bytes)) + ", above " +
         std::to_string(std::numeric_limits<std::int64_t>::max()) +
         ", the largest value a layout can use";
}

// A parameter whose value a layout cannot use says so, rather than "unknown parameter".
ParameterLookup Parameters::lookup(std::string scope) const {
  return [this, scope = std::move(scope)](std::string_view name) {
    std::optional<std::int64_t> value = integer(name, scope);
    if (!value) {
      const std::string problem = layout_problem(name, scope);
      if (!problem.empty()) throw ExpressionError(0, problem);
    }
    return value;
  };
}

const Parameters::Value& Parameters::declared(std::string_view name) const {
  const Value* v = find(name, "");
  if (!v) {
    throw Error(ECLUSE_UNDEFINED_PARAMETER,
                "parameter '" + std::string(name) + "' is not declared in the configuration");
  }
  return *v;
}

DataType Parameters::type_of(std::string_view name) const {
  return declared(name).declaration->type;
}

void Parameters::get(std::string_view name, void* buffer, std::size_t size) const {
  const Value* v = &declared(name);
  const bool text = v->declaration->type == DataType::String;
  if (text ? size < v->bytes.size() + 1 : size != v->bytes.size()) {
    size_mismatch(name, v->declaration->type, v->bytes.size() + (text ? 1 : 0), size, text);
  }
  std::memcpy(buffer, v->bytes.data(), v->bytes.size());
  if (text) static_cast<char*>(buffer)[v->bytes.size()] = '\0';
}

void Parameters::set(std::string_view name, const void* buffer, std::size_t size) {
  Value& v = existing(name);
  const auto* p = static_cast<const unsigned char*>(buffer);
  if (v.declaration->type == DataType::String) {
    v.bytes.assign(p, p + strnlen(static_cast<const char*>(buffer), size));
    v.valid = true;
    return;
  }
  if (size != v.bytes.size()) {
    size_mismatch(name, v.declaration->type, v.bytes.size(), size, false);
  }
  v.bytes.assign(p, p + size);
  v.valid = true;
}

std::vector<unsigned char> Parameters::raw(std::string_view name) const {
  const Value* v = find(name, "");
  return v ? v->bytes : std::vector<unsigned char>{};
}

void Parameters::restore(std::string_view name, std::vector<unsigned char> bytes) {
  Value& v = existing(name);
  v.bytes = std::move(bytes);
  v.valid = true;
}

std::string scope_of(std::string_view full_name) {
  const std::size_t slash = full_name.rfind('/');
  return slash == std::string_view::npos ? "" : std::string(full_name.substr(0, slash + 1));
}

}  // namespace ecluse
