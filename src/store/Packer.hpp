// Byte packing of the small summaries that stores exchange over MPI (variables, block
// descriptors, errors), and the exchange itself.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "ecluse/Error.hpp"

namespace ecluse {

/** Appends integers, strings and extents as raw 8-byte values (same machine on both ends). */
class Packer {
 public:
  void put(std::int64_t value) { bytes_.append(reinterpret_cast<const char*>(&value), 8); }
  void put(const std::string& text) {
    put(static_cast<std::int64_t>(text.size()));
    bytes_ += text;
  }
  template <class T>
  void put(const std::vector<T>& values) {
    put(static_cast<std::int64_t>(values.size()));
    for (T v : values) put(static_cast<std::int64_t>(v));
  }
  [[nodiscard]] const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

/** Reads back what Packer wrote, in the same order; throws ECLUSE_MPI_ERROR if truncated. */
class Unpacker {
 public:
  explicit Unpacker(std::string_view bytes) : bytes_(bytes) {}
  std::int64_t integer() {
    std::int64_t value = 0;
    std::memcpy(&value, take(8).data(), 8);
    return value;
  }
  std::string text() { return std::string(take(static_cast<std::size_t>(integer()))); }
  template <class T = std::uint64_t>
  std::vector<T> extent() {
    std::vector<T> values(static_cast<std::size_t>(integer()));
    for (auto& v : values) v = static_cast<T>(integer());
    return values;
  }
  [[nodiscard]] bool done() const { return at_ == bytes_.size(); }

 private:
  std::string_view take(std::size_t n) {
    if (n > bytes_.size() - at_) throw Error(ECLUSE_MPI_ERROR, "truncated store summary");
    at_ += n;
    return bytes_.substr(at_ - n, n);
  }
  std::string_view bytes_;
  std::size_t at_ = 0;
};

}  // namespace ecluse
