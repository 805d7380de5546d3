// Zero pages under views kept past finalize, never over a live mapping.
#include "KeptViews.hpp"

#include <nanobind/ndarray.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000  // Linux 4.17; older kernels take it as a hint (see below)
#endif

namespace nb = nanobind;

namespace ecluse_python {

namespace {

// One page at `page` if nothing maps it: EEXIST (mapped: readable already) leaves it alone; a
// kernel that ignores the flag may map elsewhere, which is undone.
void fill_hole(char* page, std::size_t bytes) {
  void* mapped = ::mmap(page, bytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (mapped != MAP_FAILED && mapped != page) ::munmap(mapped, bytes);
}

}  // namespace

void keep_readable(nb::handle array) {
  nb::ndarray<nb::ro> a;
  if (!nb::try_cast(array, a, false) || a.data() == nullptr || a.nbytes() == 0) return;
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(a.data()) / page * page;
  const auto end = reinterpret_cast<std::uintptr_t>(a.data()) + a.nbytes();
  // The whole range at once when it is all unmapped (the usual case), else page by page.
  void* whole = reinterpret_cast<void*>(begin);
  const std::size_t length = (end - begin + page - 1) / page * page;
  void* mapped = ::mmap(whole, length, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (mapped == whole) return;
  if (mapped != MAP_FAILED) ::munmap(mapped, length);
  for (std::uintptr_t p = begin; p < end; p += page) fill_hole(reinterpret_cast<char*>(p), page);
}

}  // namespace ecluse_python
