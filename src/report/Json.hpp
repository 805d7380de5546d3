// The one JSON writer of the C++ code (the run report, the benchmarks): numbers, strings,
// booleans, null, arrays and objects (keys keep their insertion order), properly escaped.
#pragma once

#include "core/JsonEscape.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ecluse {

class Json {
 public:
  using Array = std::vector<Json>;

  Json() = default;  // null
  Json(double v) : kind_(Kind::Number), number_(v) {}
  Json(int v) : Json(static_cast<double>(v)) {}
  Json(std::int64_t v) : Json(static_cast<double>(v)) {}
  Json(std::uint64_t v) : Json(static_cast<double>(v)) {}
  Json(bool v) : kind_(Kind::Bool), bool_(v) {}
  Json(const char* v) : Json(std::string(v)) {}
  Json(std::string v) : kind_(Kind::String), text_(std::move(v)) {}
  Json(Array v) : kind_(Kind::Array), items_(std::move(v)) {}

  static Json object();
  static Json array();
  /** Adds (or replaces) a member of an object; returns it. */
  Json& operator[](const std::string& key);
  /** Adds (or replaces) a member of an object; returns the object, to chain. */
  Json& set(const std::string& key, Json value) {
    (*this)[key] = std::move(value);
    return *this;
  }
  /** Appends to an array; returns the array, to chain. */
  Json& push_back(Json value) {
    items_.push_back(std::move(value));
    return *this;
  }
  /** Indented text (0: one line). Integers below 2^53 print exactly, other numbers as the
   * shortest text that reads back as the same double, NaN and infinities as null. */
  [[nodiscard]] std::string dump(int indent = 2) const;

 private:
  // Plain members rather than a std::variant: GCC 12 warns (maybe-uninitialized) on moving one.
  enum class Kind { Null, Number, Bool, String, Array, Object };
  void write(std::string& out, int indent, int depth) const;
  void write_items(std::string& out, int indent, int depth) const;
  Kind kind_ = Kind::Null;
  double number_ = 0;
  bool bool_ = false;
  std::string text_;
  std::vector<std::string> keys_;  // objects: the key of each item
  std::vector<Json> items_;        // arrays and objects
};

}  // namespace ecluse
