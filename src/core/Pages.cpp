// Page size and pre-faulting.
#include "core/Pages.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

namespace ecluse {

namespace {

void touch(volatile char* byte, bool shared) {
  const char value = *byte;
  if (!shared) *byte = value;
}

}  // namespace

std::size_t page_bytes() {
  static const auto bytes = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return bytes;
}

int populate_pages(void* data, std::size_t bytes, bool shared) {
  if (bytes == 0) return 0;
  auto* first_byte = static_cast<volatile char*>(data);
  const std::size_t page = page_bytes();
  const auto start = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (start + page - 1) / page * page;
  const std::uintptr_t end = (start + bytes) / page * page;
  bool whole_pages_done = false;
  if (end > first) {
    if (::madvise(reinterpret_cast<void*>(first), end - first, MADV_POPULATE_WRITE) == 0) {
      whole_pages_done = true;
    } else if (errno != EINVAL && errno != ENOSYS) {
      return errno;
    }
  }
  if (!whole_pages_done) {
    for (std::size_t at = 0; at < bytes; at += page) touch(first_byte + at, shared);
  }
  touch(first_byte, shared);  // the partial pages at both ends
  touch(first_byte + bytes - 1, shared);
  return 0;
}

}  // namespace ecluse
