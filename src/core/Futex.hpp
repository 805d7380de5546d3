// Sleeping and waking across processes on a 32-bit word in shared memory (Linux futex).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace ecluse {

/** Sleeps while *word == expected, at most `timeout`; returns false on timeout. Spurious
 * wake-ups return true: callers re-check their condition. */
bool futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected,
                std::chrono::nanoseconds timeout);
/** Wakes up to `count` sleepers on word. */
void futex_wake(std::atomic<std::uint32_t>& word, int count);

}  // namespace ecluse
