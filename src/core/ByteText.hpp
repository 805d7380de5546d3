// Byte counts as people read them, and the buffer sizes Ecluse suggests: shared by the error
// messages of the transports and by ecluse-check, so that both say the same.
#pragma once

#include <cstdint>
#include <string>

namespace ecluse {

/** "N bytes", and from 1 KiB on "N bytes (x.yy KiB)" (MiB, GiB, TiB likewise). */
std::string bytes_text(std::uint64_t bytes);

/** A <buffer size> to suggest: `bytes` rounded up to a whole MiB from 1 MiB on, so that the
 * size written in MiB, as its text shows it, is not a few bytes short. */
std::uint64_t suggested_size(std::uint64_t bytes);

}  // namespace ecluse
