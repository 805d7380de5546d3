// The zfp filter in H5Z-ZFP's format: cd_values[0] holds the zfp library version, codec and
// filter format version; cd_values[1..] the zfp "full" header of one chunk (magic, field type
// and extent, compression mode); each chunk holds only the zfp stream. zfp's bit streams are
// read and written in 64-bit words here (Debian's build) and in bytes by H5Z-ZFP: on a
// little-endian host both give the same bytes, which is why this file requires one.
#include "store/CompressionZfp.hpp"

#include <hdf5.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ecluse/Error.hpp"

#ifdef ECLUSE_HAVE_ZFP
#include <zfp.h>
#endif

namespace ecluse {

static_assert(std::endian::native == std::endian::little,
              "the zfp filter writes H5Z-ZFP's byte layout on little-endian hosts only");

bool zfp_accepts(DataType type, const std::vector<std::uint64_t>& chunk) noexcept {
  if (type != DataType::Float32 && type != DataType::Float64) return false;
  const auto used =
      std::count_if(chunk.begin(), chunk.end(), [](std::uint64_t n) { return n > 1; });
  return used >= 1 && used <= 4;
}

#ifndef ECLUSE_HAVE_ZFP

bool zfp_built() noexcept {
  return false;
}

void register_zfp_filter() {
  throw Error(ECLUSE_IO_ERROR,
              "Compression zfp: Ecluse was not built with zfp (Debian: "
              "libzfp-dev, then reconfigure)");
}

std::vector<unsigned> zfp_cd_values(const CompressionSettings&, DataType,
                                    const std::vector<std::uint64_t>&) {
  register_zfp_filter();
  return {};
}

#else

namespace {

// The version word of H5Z-ZFP 1.1: zfp version as 4 hex digits, zfp codec, filter version.
constexpr unsigned kFilterFormatVersion = 0x111;
constexpr unsigned kZfpVersionHex = (ZFP_VERSION_MAJOR << 12) | (ZFP_VERSION_MINOR << 8) |
                                    (ZFP_VERSION_PATCH << 4) | ZFP_VERSION_TWEAK;
constexpr unsigned kVersionWord = (kZfpVersionHex << 16) | (ZFP_CODEC << 12) | kFilterFormatVersion;
constexpr std::size_t kMaxCdValues = 6;  // H5Z-ZFP's limit, version word included

/** Owns the three zfp objects of one operation. */
struct ZfpObjects {
  bitstream* bits = nullptr;
  zfp_stream* stream = nullptr;
  zfp_field* field = nullptr;
  ZfpObjects() = default;
  ZfpObjects(const ZfpObjects&) = delete;
  ZfpObjects& operator=(const ZfpObjects&) = delete;
  ~ZfpObjects() {
    if (field != nullptr) zfp_field_free(field);
    if (stream != nullptr) zfp_stream_close(stream);
    if (bits != nullptr) stream_close(bits);
  }
};

std::size_t word_padded(std::size_t bytes) {
  return (bytes + 7) / 8 * 8;
}

// The chunk's dimensions larger than one, fastest first (zfp's nx, ny, ...), as H5Z-ZFP does.
std::vector<std::size_t> zfp_extent(const std::vector<std::uint64_t>& chunk) {
  std::vector<std::size_t> used;
  for (auto n = chunk.rbegin(); n != chunk.rend(); ++n) {
    if (*n > 1) used.push_back(static_cast<std::size_t>(*n));
  }
  return used;
}

zfp_field* make_field(zfp_type type, const std::vector<std::size_t>& n) {
  switch (n.size()) {
    case 1:
      return zfp_field_1d(nullptr, type, n[0]);
    case 2:
      return zfp_field_2d(nullptr, type, n[0], n[1]);
    case 3:
      return zfp_field_3d(nullptr, type, n[0], n[1], n[2]);
    default:
      return zfp_field_4d(nullptr, type, n[0], n[1], n[2], n[3]);
  }
}

void set_mode(zfp_stream* stream, const CompressionSettings& settings, zfp_type type,
              std::size_t dims) {
  if (settings.zfp_mode == ZfpMode::Rate) {
    zfp_stream_set_rate(stream, settings.zfp_value, type, static_cast<unsigned>(dims), 0);
  } else if (settings.zfp_mode == ZfpMode::Precision) {
    zfp_stream_set_precision(stream, static_cast<unsigned>(settings.zfp_value));
  } else {
    zfp_stream_set_accuracy(stream, settings.zfp_value);
  }
}

// Reads the header of cd_values[1..] into a field (type, extent) and the stream's mode.
bool read_header(std::size_t count, const unsigned* cd_values, ZfpObjects& zfp) {
  if (count < 2 || count > kMaxCdValues) return false;
  std::uint64_t words[4] = {};
  std::memcpy(words, cd_values + 1, (count - 1) * sizeof(unsigned));
  zfp.bits = stream_open(words, sizeof(words));
  zfp.stream = zfp.bits ? zfp_stream_open(zfp.bits) : nullptr;
  zfp.field = zfp_field_alloc();
  if (zfp.stream == nullptr || zfp.field == nullptr) return false;
  return zfp_read_header(zfp.stream, zfp.field, ZFP_HEADER_FULL) != 0;
}

std::size_t value_size(zfp_type type) {
  return type == zfp_type_float || type == zfp_type_int32 ? 4 : 8;
}

// Returns the new size, 0 on failure (HDF5's filter contract), replacing *buffer.
std::size_t compress_chunk(ZfpObjects& zfp, std::size_t* buffer_size, void** buffer) {
  zfp_field_set_pointer(zfp.field, *buffer);
  const std::size_t capacity = word_padded(zfp_stream_maximum_size(zfp.stream, zfp.field));
  void* out = std::malloc(capacity);
  bitstream* bits = out ? stream_open(out, capacity) : nullptr;
  if (bits == nullptr) {
    std::free(out);
    return 0;
  }
  zfp_stream_set_bit_stream(zfp.stream, bits);
  zfp_stream_rewind(zfp.stream);
  const std::size_t size = zfp_compress(zfp.stream, zfp.field);
  stream_close(bits);
  if (size == 0) {
    std::free(out);
    return 0;
  }
  std::free(*buffer);
  *buffer = out;
  *buffer_size = capacity;
  return size;
}

std::size_t decompress_chunk(ZfpObjects& zfp, std::size_t bytes, std::size_t* buffer_size,
                             void** buffer) {
  const std::size_t size =
      zfp_field_size(zfp.field, nullptr) * value_size(zfp_field_type(zfp.field));
  void* out = std::malloc(size);
  void* in = std::calloc(word_padded(bytes) + 8, 1);  // whole words for a 64-bit reader
  bitstream* bits = in && out ? stream_open(in, word_padded(bytes) + 8) : nullptr;
  bool ok = bits != nullptr;
  if (ok) {
    std::memcpy(in, *buffer, bytes);
    zfp_field_set_pointer(zfp.field, out);
    zfp_stream_set_bit_stream(zfp.stream, bits);
    zfp_stream_rewind(zfp.stream);
    ok = zfp_decompress(zfp.stream, zfp.field) != 0;
    stream_close(bits);
  }
  std::free(in);
  if (!ok) {
    std::free(out);
    return 0;
  }
  std::free(*buffer);
  *buffer = out;
  *buffer_size = size;
  return size;
}

std::size_t zfp_filter(unsigned flags, std::size_t count, const unsigned cd_values[],
                       std::size_t bytes, std::size_t* buffer_size, void** buffer) {
  ZfpObjects zfp;
  if (!read_header(count, cd_values, zfp)) return 0;
  if ((flags & H5Z_FLAG_REVERSE) != 0) return decompress_chunk(zfp, bytes, buffer_size, buffer);
  return compress_chunk(zfp, buffer_size, buffer);
}

const H5Z_class2_t kZfpClass = {H5Z_CLASS_T_VERS,
                                static_cast<H5Z_filter_t>(kZfpFilterId),
                                1,
                                1,
                                "ecluse zfp (H5Z-ZFP 1.1 format)",
                                nullptr,
                                nullptr,
                                zfp_filter};

}  // namespace

bool zfp_built() noexcept {
  return true;
}

// Registered by the store even when another H5Z-ZFP is loaded: that one's set_local would
// take the final cd_values written here for a request and refuse them.
void register_zfp_filter() {
  if (H5Zregister(&kZfpClass) < 0) {
    throw Error(ECLUSE_IO_ERROR, "HDF5 refused to register the zfp filter (id 32013)");
  }
}

std::vector<unsigned> zfp_cd_values(const CompressionSettings& settings, DataType type,
                                    const std::vector<std::uint64_t>& chunk) {
  const zfp_type ztype = type == DataType::Float32 ? zfp_type_float : zfp_type_double;
  const std::vector<std::size_t> extent = zfp_extent(chunk);
  std::uint64_t words[4] = {};
  ZfpObjects zfp;
  zfp.field = make_field(ztype, extent);
  zfp.bits = stream_open(words, sizeof(words));
  zfp.stream = zfp.bits ? zfp_stream_open(zfp.bits) : nullptr;
  if (zfp.field == nullptr || zfp.stream == nullptr) {
    throw Error(ECLUSE_IO_ERROR, "zfp could not open a stream");
  }
  set_mode(zfp.stream, settings, ztype, extent.size());
  const std::size_t header_bits = zfp_write_header(zfp.stream, zfp.field, ZFP_HEADER_FULL);
  zfp_stream_flush(zfp.stream);
  const std::size_t values = (header_bits + 31) / 32;
  if (header_bits == 0 || values + 1 > kMaxCdValues) {
    throw Error(ECLUSE_IO_ERROR, "zfp cannot describe a chunk of extent " +
                                     std::to_string(chunk.size()) + "-d in its header");
  }
  std::vector<unsigned> cd_values(values + 1, 0);
  cd_values[0] = kVersionWord;
  std::memcpy(cd_values.data() + 1, words, values * sizeof(unsigned));
  return cd_values;
}

#endif

}  // namespace ecluse
