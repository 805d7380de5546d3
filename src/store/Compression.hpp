// How an HDF5 store compresses a dataset: which method a dataset really gets (lossy methods
// take floating-point data only), its chunks and filters, the 16-bit encodings of a block's
// interior, and the attributes that tell a reader how to restore the values.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <vector>

#include "config/StoreKinds.hpp"
#include "store/CompressionCodecs.hpp"
#include "store/Hdf5Support.hpp"

namespace ecluse {

/** Throws ECLUSE_CONFIG_ERROR at the store's creation when its method is not in this build. */
void check_compression_built(const CompressionSettings& settings, const std::string& store_name);

/** The method a dataset of this type and chunk gets: the configured one, or None for what it
 * cannot take (integers and strings under half, scaled16 and zfp; scalars and empty
 * datasets; zfp chunks of more than 4 dimensions larger than one). */
Hdf5Compression applied_method(const CompressionSettings& settings, DataType type,
                               const std::vector<std::uint64_t>& chunk);
/** At most how many bytes `raw` bytes of `type` take once stored with `settings`: the disk
 * reservation must not fall short where a method can expand the data (zfp's rate above the
 * type's bits, zfp and deflate on incompressible data). */
std::uint64_t stored_bytes_bound(std::uint64_t raw, DataType type,
                                 const CompressionSettings& settings);
/** Half and scaled16 write converted values (uint16 buffers); the others the data itself. */
bool converts(Hdf5Compression applied) noexcept;

/** The chunk of a dataset of this extent: `hint` (a block's interior) within the extent, its
 * slowest dimensions halved until it holds at most max_bytes. */
std::vector<std::uint64_t> chunk_extent(const std::vector<std::uint64_t>& extent,
                                        const std::vector<std::uint64_t>& hint,
                                        std::size_t value_size, std::uint64_t max_bytes);

/** The file type of a dataset: binary16 (half), uint16 (scaled16), else the native type. */
Hdf5Handle stored_type(Hdf5Compression applied, DataType type, const std::string& path);
/** Adds chunking and the filters of `applied` to a dataset creation list (nothing for None). */
void add_compression(hid_t dcpl, const CompressionSettings& settings, Hdf5Compression applied,
                     DataType type, const std::vector<std::uint64_t>& chunk,
                     const std::string& path);

/** The finite range of a block's interior (floating-point blocks). */
FiniteRange interior_range(const BlockData& block);
/** What a dataset whose values span `range` gets: zfp keeps no NaN or Inf, so such a dataset is
 * stored unchanged (compression "none") rather than lose them. */
Hdf5Compression applied_to_values(Hdf5Compression applied, const FiniteRange& range) noexcept;
/** The block's interior (ghosts stripped), C order, encoded as half or scaled16. */
std::vector<std::uint16_t> encode_interior(const BlockData& block, Hdf5Compression applied,
                                           const ScaledRange& range);

/** "compression" (the applied method), and for half and scaled16 "original_type", for
 * scaled16 "scale_offset", "scale_factor" and "scale_nonfinite_code". */
void write_compression_attributes(hid_t dataset, Hdf5Compression applied, DataType original,
                                  const ScaledRange& range, const std::string& path);

}  // namespace ecluse
