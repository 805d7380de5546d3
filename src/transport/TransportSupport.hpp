// Pieces shared by the transports: the peer timeout, the block copy, and the messages of a block
// that does not fit, is skipped or is committed without an alloc.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "block/BlockData.hpp"
#include "core/Log.hpp"

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

/** Throws ECLUSE_BLOCK_NOT_FOUND: a commit of a block that no alloc handed out. */
[[noreturn]] void throw_not_allocated(const Variable& variable, int block);

/** Logs a write dropped by the "skip" policy; `skipped` counts them so far. */
void log_skipped(Log& log, const BlockData& block, std::uint64_t skipped, const std::string& why);

}  // namespace ecluse
