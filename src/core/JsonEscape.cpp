// Text as a JSON string literal.
#include "core/JsonEscape.hpp"

#include <cstdio>

namespace ecluse {
namespace {

bool continuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

// Bytes of the well-formed UTF-8 sequence at text[i] (RFC 3629: no overlong forms, no
// surrogates, at most U+10FFFF), or 0.
std::size_t utf8_length(const std::string& text, std::size_t i) {
  const auto byte = [&](std::size_t k) -> unsigned char {
    return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0;
  };
  const unsigned char c = byte(0);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return continuation(byte(1)) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned char low = c == 0xE0 ? 0xA0 : 0x80, high = c == 0xED ? 0x9F : 0xBF;
    return byte(1) >= low && byte(1) <= high && continuation(byte(2)) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned char low = c == 0xF0 ? 0x90 : 0x80, high = c == 0xF4 ? 0x8F : 0xBF;
    return byte(1) >= low && byte(1) <= high && continuation(byte(2)) && continuation(byte(3)) ? 4
                                                                                               : 0;
  }
  return 0;
}

}  // namespace

// A byte that starts no well-formed UTF-8 sequence (a path or a message in another encoding)
// becomes U+FFFD: the document stays JSON that strict parsers read.
std::string json_escape(const std::string& text) {
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    const std::size_t length = utf8_length(text, i);
    if (length == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char code[8];
      std::snprintf(code, sizeof code, "\\u%04x", c);
      out += code;
    } else {
      out.append(text, i, length);
    }
    i += length;
  }
  return out + "\"";
}

}  // namespace ecluse
