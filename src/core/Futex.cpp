// Linux futex wait/wake on a word in shared memory. No FUTEX_PRIVATE_FLAG: the private variant
// keys the wait queue on (process, address) and would never see a wake from another process.
#include "core/Futex.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

namespace ecluse {

static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t),
              "the kernel reads the futex word as a plain 32-bit integer");
static_assert(std::atomic<std::uint32_t>::is_always_lock_free,
              "a futex word must be lock-free to be shared between processes");

namespace {

std::uint32_t* raw(std::atomic<std::uint32_t>& word) {
  return reinterpret_cast<std::uint32_t*>(&word);
}

timespec to_timespec(std::chrono::nanoseconds timeout) {
  const auto ns = timeout.count() < 0 ? 0 : timeout.count();
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
  ts.tv_nsec = static_cast<long>(ns % 1'000'000'000);
  return ts;
}

}  // namespace

bool futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected,
                std::chrono::nanoseconds timeout) {
  // FUTEX_WAIT takes a relative timeout (measured on CLOCK_MONOTONIC by the kernel).
  timespec ts = to_timespec(timeout);
  const long rc = syscall(SYS_futex, raw(word), FUTEX_WAIT, expected, &ts, nullptr, 0);
  // EAGAIN (the word already changed) and EINTR count as wake-ups: callers re-check anyway.
  return rc == 0 || errno != ETIMEDOUT;
}

void futex_wake(std::atomic<std::uint32_t>& word, int count) {
  if (count > 0) syscall(SYS_futex, raw(word), FUTEX_WAKE, count, nullptr, nullptr, 0);
}

}  // namespace ecluse
