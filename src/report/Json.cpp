// Writing JSON values.
#include "report/Json.hpp"

#include <cmath>
#include <cstdio>

namespace ecluse {

Json& Json::operator[](const std::string& key) {
  auto& members = std::get<Object>(value_);
  for (auto& [k, v] : members) {
    if (k == key) return v;
  }
  members.emplace_back(key, Json());
  return members.back().second;
}

std::string json_escape(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char code[8];
      std::snprintf(code, sizeof code, "\\u%04x", c);
      out += code;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

namespace {
std::string number(double v) {
  if (!std::isfinite(v)) return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

void newline(std::string& out, int indent, int depth) {
  if (indent <= 0) return;
  out += '\n';
  out.append(static_cast<std::size_t>(indent * depth), ' ');
}
}  // namespace

void Json::write(std::string& out, int indent, int depth) const {
  if (std::holds_alternative<std::monostate>(value_)) out += "null";
  if (const auto* d = std::get_if<double>(&value_)) out += number(*d);
  if (const auto* b = std::get_if<bool>(&value_)) out += *b ? "true" : "false";
  if (const auto* s = std::get_if<std::string>(&value_)) out += json_escape(*s);
  if (const auto* a = std::get_if<Array>(&value_)) {
    out += '[';
    for (std::size_t i = 0; i < a->size(); ++i) {
      if (i) out += ',';
      newline(out, indent, depth + 1);
      (*a)[i].write(out, indent, depth + 1);
    }
    if (!a->empty()) newline(out, indent, depth);
    out += ']';
  }
  if (const auto* o = std::get_if<Object>(&value_)) {
    out += '{';
    for (std::size_t i = 0; i < o->size(); ++i) {
      if (i) out += ',';
      newline(out, indent, depth + 1);
      out += json_escape((*o)[i].first) + (indent > 0 ? ": " : ":");
      (*o)[i].second.write(out, indent, depth + 1);
    }
    if (!o->empty()) newline(out, indent, depth);
    out += '}';
  }
}

std::string Json::dump(int indent) const {
  std::string out;
  write(out, indent, 0);
  return out;
}

}  // namespace ecluse
