// Pieces shared by the transports of dedicated cores and dedicated nodes: the peer timeout,
// the block copy, and the messages of a block that does not fit or is skipped.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "core/Log.hpp"
#include "shm/ShmTypes.hpp"
#include "store/StoreBackend.hpp"

namespace ecluse {

/** Seconds a client or server waits for its peer before failing (ECLUSE_TIMEOUT, default 600). */
std::chrono::seconds peer_timeout();

/** memcpy in 64 MiB pieces: glibc's memcpy slows down ~3x on copies of hundreds of MiB whose
 * source and destination sit at different page offsets; 64 MiB pieces do not. */
void copy_block(void* to, const void* from, std::size_t bytes);

/** A client would hold `need` bytes (`held` of them already, for this iteration) where it may
 * hold `share`; `memory` names the setting to raise. */
[[noreturn]] void throw_too_big(const BlockData& block, std::size_t need, std::size_t share,
                                std::size_t held, const std::string& memory);

/** The header of a Write event describing `block` (dimensions at most shm::kMaxDims). */
shm::Event describe_block(const Config& config, const BlockData& block, std::size_t bytes);

/** Throws ECLUSE_INVALID_DIMENSIONS when `block` has more dimensions than a header holds. */
void check_dimensions(const BlockData& block, const std::string& approach);

/** Logs a write dropped by the "skip" policy; `skipped` counts them so far. */
void log_skipped(Log& log, const BlockData& block, std::uint64_t skipped, const std::string& why);

}  // namespace ecluse
