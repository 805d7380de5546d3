// Compression of the HDF5 stores' datasets: chunks, filters, encodings, attributes.
#include "store/Compression.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/EnumNames.hpp"
#include "ecluse/Error.hpp"
#include "store/CompressionZfp.hpp"

namespace ecluse {
namespace {

bool is_floating(DataType type) {
  return type == DataType::Float32 || type == DataType::Float64;
}

// IEEE binary16: h5py reads a 2-byte IEEE float as numpy.float16.
Hdf5Handle half_type(const std::string& path) {
  Hdf5Handle type = hdf5_own(H5Tcopy(H5T_IEEE_F32LE), H5Tclose, "copy a float type", path);
  hdf5_check(H5Tset_fields(type.get(), 15, 10, 5, 0, 10), "shape the half type", path);
  hdf5_check(H5Tset_size(type.get(), 2), "size the half type", path);
  hdf5_check(H5Tset_ebias(type.get(), 15), "bias the half type", path);
  return type;
}

void write_scalar(hid_t object, const std::string& name, hid_t type, const void* value,
                  const std::string& path) {
  Hdf5Handle space = hdf5_own(H5Screate(H5S_SCALAR), H5Sclose, "create a dataspace", path);
  Hdf5Handle attribute =
      hdf5_own(H5Acreate2(object, name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
               H5Aclose, "create attribute '" + name + "'", path);
  hdf5_check(H5Awrite(attribute.get(), type, value), "write attribute '" + name + "'", path);
}

// Calls row(first, count) for each contiguous run of the interior, in C order.
template <class F>
void for_each_interior_row(const BlockData& block, F&& row) {
  const std::vector<std::uint64_t> interior = block.interior();
  const std::size_t rank = interior.size();
  if (rank == 0) return row(std::uint64_t{0}, std::uint64_t{1});
  if (element_count(interior) == 0) return;
  std::vector<std::uint64_t> index(rank, 0);
  const std::vector<std::uint64_t> lo =
      block.ghost_lo.empty() ? std::vector<std::uint64_t>(rank, 0) : block.ghost_lo;
  while (true) {
    std::uint64_t offset = 0;
    for (std::size_t d = 0; d < rank; ++d) offset = offset * block.dims[d] + lo[d] + index[d];
    row(offset, interior[rank - 1]);
    std::size_t d = rank - 1;
    while (d-- > 0) {
      if (++index[d] < interior[d]) break;
      index[d] = 0;
    }
    if (d == static_cast<std::size_t>(-1)) return;
  }
}

// Loads through memcpy: a block received or placed in a buffer need not be aligned for T.
template <class T, class F>
void for_each_interior_value(const BlockData& block, F&& value) {
  const auto* bytes = static_cast<const unsigned char*>(block.data);
  for_each_interior_row(block, [&](std::uint64_t first, std::uint64_t count) {
    for (std::uint64_t i = 0; i < count; ++i) {
      T x;
      std::memcpy(&x, bytes + (first + i) * sizeof(T), sizeof(T));
      value(static_cast<double>(x));
    }
  });
}

template <class F>
void for_each_floating_value(const BlockData& block, F&& value) {
  if (block.type == DataType::Float32) return for_each_interior_value<float>(block, value);
  for_each_interior_value<double>(block, value);
}

}  // namespace

void check_compression_built(const CompressionSettings& settings, const std::string& store_name) {
  if (settings.method != Hdf5Compression::Zfp || zfp_built()) return;
  throw Error(ECLUSE_CONFIG_ERROR, "store '" + store_name +
                                       "': Compression zfp is not built: Ecluse was built "
                                       "without zfp. Fix: install zfp (Debian: libzfp-dev) and "
                                       "rebuild, or choose another Compression");
}

Hdf5Compression applied_method(const CompressionSettings& settings, DataType type,
                               const std::vector<std::uint64_t>& chunk) {
  const Hdf5Compression method = settings.method;
  if (method == Hdf5Compression::None || chunk.empty() || element_count(chunk) == 0) {
    return Hdf5Compression::None;
  }
  if (method == Hdf5Compression::Deflate) return method;
  if (method == Hdf5Compression::Zfp)
    return zfp_accepts(type, chunk) ? method : Hdf5Compression::None;
  return is_floating(type) ? method : Hdf5Compression::None;
}

std::uint64_t stored_bytes_bound(std::uint64_t raw, DataType type,
                                 const CompressionSettings& settings) {
  const auto ratio = [raw](double factor) {
    return static_cast<std::uint64_t>(std::ceil(static_cast<double>(raw) * factor));
  };
  switch (settings.method) {
    case Hdf5Compression::Deflate:  // zlib's deflateBound: 5 bytes per 16 KiB stored block
      return raw + raw / 1024 + 64;
    case Hdf5Compression::Zfp: {
      if (!is_floating(type)) return raw;
      const double bits = 8.0 * static_cast<double>(data_type_size(type));
      // rate: exactly that many bits per value; precision and accuracy (a tight tolerance
      // keeps every bit): at most the bits kept, plus block headers (1/8 at most).
      if (settings.zfp_mode == ZfpMode::Rate)
        return ratio(std::max(1.0, settings.zfp_value / bits));
      const double kept = settings.zfp_mode == ZfpMode::Accuracy ? bits : settings.zfp_value;
      return ratio(std::max(1.0, kept / bits) * 1.125) + 64;
    }
    default:  // none; half and scaled16 store 16 bits per float, integers unchanged
      return raw;
  }
}

bool converts(Hdf5Compression applied) noexcept {
  return applied == Hdf5Compression::Half || applied == Hdf5Compression::Scaled16;
}

std::vector<std::uint64_t> chunk_extent(const std::vector<std::uint64_t>& extent,
                                        const std::vector<std::uint64_t>& hint,
                                        std::size_t value_size, std::uint64_t max_bytes) {
  std::vector<std::uint64_t> chunk(extent.size(), 1);
  for (std::size_t d = 0; d < extent.size(); ++d) {
    const std::uint64_t wanted = d < hint.size() ? hint[d] : extent[d];
    chunk[d] = extent[d] == 0 ? 0 : std::max<std::uint64_t>(1, std::min(wanted, extent[d]));
  }
  while (element_count(chunk) * value_size > max_bytes) {
    auto slowest = std::find_if(chunk.begin(), chunk.end(), [](std::uint64_t n) { return n > 1; });
    if (slowest == chunk.end()) break;
    *slowest = (*slowest + 1) / 2;
  }
  return chunk;
}

Hdf5Handle stored_type(Hdf5Compression applied, DataType type, const std::string& path) {
  if (applied == Hdf5Compression::Half) return half_type(path);
  const hid_t base = applied == Hdf5Compression::Scaled16 ? H5T_NATIVE_UINT16 : native_type(type);
  return hdf5_own(H5Tcopy(base), H5Tclose, "copy a type", path);
}

void add_compression(hid_t dcpl, const CompressionSettings& settings, Hdf5Compression applied,
                     DataType type, const std::vector<std::uint64_t>& chunk,
                     const std::string& path) {
  if (applied == Hdf5Compression::None) return;
  const std::vector<hsize_t> dims(chunk.begin(), chunk.end());
  hdf5_check(H5Pset_chunk(dcpl, static_cast<int>(dims.size()), dims.data()), "set the chunks",
             path);
  if (applied == Hdf5Compression::Deflate) {
    if (settings.shuffle) hdf5_check(H5Pset_shuffle(dcpl), "add the shuffle filter", path);
    hdf5_check(H5Pset_deflate(dcpl, static_cast<unsigned>(settings.level)),
               "add the deflate filter", path);
  }
  if (applied == Hdf5Compression::Zfp) {
    register_zfp_filter();
    const std::vector<unsigned> cd_values = zfp_cd_values(settings, type, chunk);
    hdf5_check(H5Pset_filter(dcpl, static_cast<H5Z_filter_t>(kZfpFilterId), H5Z_FLAG_MANDATORY,
                             cd_values.size(), cd_values.data()),
               "add the zfp filter", path);
  }
}

FiniteRange interior_range(const BlockData& block) {
  FiniteRange range;
  if (block.data == nullptr || !is_floating(block.type)) return range;
  for_each_floating_value(block, [&](double x) { range.add(x); });
  return range;
}

Hdf5Compression applied_to_values(Hdf5Compression applied, const FiniteRange& range) noexcept {
  return applied == Hdf5Compression::Zfp && range.nonfinite > 0 ? Hdf5Compression::None : applied;
}

std::vector<std::uint16_t> encode_interior(const BlockData& block, Hdf5Compression applied,
                                           const ScaledRange& range) {
  std::vector<std::uint16_t> codes;
  codes.reserve(element_count(block.interior()));
  if (applied == Hdf5Compression::Half) {
    for_each_floating_value(block, [&](double x) { codes.push_back(to_half(x)); });
  } else {
    for_each_floating_value(block, [&](double x) { codes.push_back(to_scaled(x, range)); });
  }
  return codes;
}

void write_compression_attributes(hid_t dataset, Hdf5Compression applied, DataType original,
                                  const ScaledRange& range, const std::string& path) {
  write_string_attribute(dataset, "compression", std::string(name_of(applied)), path);
  if (!converts(applied)) return;
  write_string_attribute(dataset, "original_type", std::string(data_type_name(original)), path);
  if (applied != Hdf5Compression::Scaled16) return;
  write_scalar(dataset, "scale_offset", H5T_NATIVE_DOUBLE, &range.offset, path);
  write_scalar(dataset, "scale_factor", H5T_NATIVE_DOUBLE, &range.factor, path);
  const std::int64_t code = kScaledNonFinite;
  write_scalar(dataset, "scale_nonfinite_code", H5T_NATIVE_INT64, &code, path);
}

}  // namespace ecluse
