// A small JSON value for the run report: numbers, strings, booleans, null, arrays and objects
// (keys keep their insertion order), written with proper escaping.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ecluse {

class Json {
 public:
  using Object = std::vector<std::pair<std::string, Json>>;
  using Array = std::vector<Json>;

  Json() = default;  // null
  Json(double v) : value_(v) {}
  Json(int v) : value_(static_cast<double>(v)) {}
  Json(std::uint64_t v) : value_(static_cast<double>(v)) {}
  Json(bool v) : value_(v) {}
  Json(const char* v) : value_(std::string(v)) {}
  Json(std::string v) : value_(std::move(v)) {}
  Json(Array v) : value_(std::move(v)) {}
  Json(Object v) : value_(std::move(v)) {}

  static Json object() { return Json(Object{}); }
  static Json array() { return Json(Array{}); }
  /** Adds (or replaces) a member of an object; returns it. */
  Json& operator[](const std::string& key);
  void push_back(Json value) { std::get<Array>(value_).push_back(std::move(value)); }
  /** Indented text; numbers keep up to 9 significant digits. */
  [[nodiscard]] std::string dump(int indent = 2) const;

 private:
  void write(std::string& out, int indent, int depth) const;
  std::variant<std::monostate, double, bool, std::string, Array, Object> value_;
};

std::string json_escape(const std::string& text);

}  // namespace ecluse
