// Memory pages: their size, and mapping a range at once (pre-faulting), shared by the DC segment
// and the DN message memory.
#pragma once

#include <cstddef>

namespace ecluse {

/** The kernel's page size (sysconf), read once. */
std::size_t page_bytes();

/** Maps every page of [data, data + bytes) for writing without changing what it holds: the
 * whole pages inside through MADV_POPULATE_WRITE (Linux >= 5.14: no fault per page); on an
 * older kernel (EINVAL, ENOSYS) by touching each page, with a read for `shared` memory (which
 * allocates the page and maps it writable: no copy on write in a shared mapping) and with a
 * write of the byte read for private memory (a read would map the zero page). Partial pages at
 * either end are touched too. Returns 0, or the errno of a failure (ENOMEM: no memory). */
int populate_pages(void* data, std::size_t bytes, bool shared);

}  // namespace ecluse
