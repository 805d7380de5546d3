// The zfp filter of the HDF5 store, written in the format of LLNL's H5Z-ZFP (filter id 32013),
// so that h5py with hdf5plugin, or any HDF5 with the H5Z-ZFP plugin, reads the files.
#pragma once

#include <cstdint>
#include <vector>

#include "config/StoreKinds.hpp"
#include "core/DataType.hpp"

namespace ecluse {

inline constexpr unsigned kZfpFilterId = 32013;

/** True when this build links zfp. */
bool zfp_built() noexcept;
/** Registers the filter with HDF5 in this process (idempotent); throws ECLUSE_IO_ERROR when
 * zfp is not built or HDF5 refuses. */
void register_zfp_filter();
/** Whether zfp takes a chunk of this type and extent: float32/float64, 1 to 4 dimensions
 * larger than one. */
bool zfp_accepts(DataType type, const std::vector<std::uint64_t>& chunk) noexcept;
/** The filter's cd_values as H5Z-ZFP stores them: a version word, then the zfp header (field
 * type and extent, mode) as a bit stream. Throws ECLUSE_IO_ERROR if zfp cannot encode it. */
std::vector<unsigned> zfp_cd_values(const CompressionSettings& settings, DataType type,
                                    const std::vector<std::uint64_t>& chunk);

}  // namespace ecluse
