// Writing JSON values.
#include "report/Json.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace ecluse {

Json Json::object() {
  Json j;
  j.kind_ = Kind::Object;
  return j;
}

Json Json::array() {
  Json j;
  j.kind_ = Kind::Array;
  return j;
}

Json& Json::operator[](const std::string& key) {
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] == key) return items_[i];
  }
  keys_.push_back(key);
  items_.emplace_back();
  return items_.back();
}

namespace {
// The shortest text that reads back as the same double: a reader gets the very number (the
// report's sums equal those of the trace, bit for bit).
std::string number(double v) {
  if (!std::isfinite(v)) return "null";
  char text[32];
  const bool integral = v == std::floor(v) && std::fabs(v) < 9.0e15;
  if (integral) {
    std::snprintf(text, sizeof text, "%.0f", v);
    return text;
  }
  const auto end = std::to_chars(text, text + sizeof text, v).ptr;
  return std::string(text, end);
}

void newline(std::string& out, int indent, int depth) {
  if (indent <= 0) return;
  out += '\n';
  out.append(static_cast<std::size_t>(indent * depth), ' ');
}
}  // namespace

void Json::write_items(std::string& out, int indent, int depth) const {
  const bool object = kind_ == Kind::Object;
  out += object ? '{' : '[';
  for (std::size_t i = 0; i < items_.size(); ++i) {
    if (i) out += ',';
    newline(out, indent, depth + 1);
    if (object) out += json_escape(keys_[i]) + (indent > 0 ? ": " : ":");
    items_[i].write(out, indent, depth + 1);
  }
  if (!items_.empty()) newline(out, indent, depth);
  out += object ? '}' : ']';
}

void Json::write(std::string& out, int indent, int depth) const {
  switch (kind_) {
    case Kind::Null:
      out += "null";
      return;
    case Kind::Number:
      out += number(number_);
      return;
    case Kind::Bool:
      out += bool_ ? "true" : "false";
      return;
    case Kind::String:
      out += json_escape(text_);
      return;
    default:
      write_items(out, indent, depth);
  }
}

std::string Json::dump(int indent) const {
  std::string out;
  write(out, indent, 0);
  return out;
}

}  // namespace ecluse
