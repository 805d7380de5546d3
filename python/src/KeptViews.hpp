// Zero-copy views that outlive their session: after ecluse_finalize the memory they viewed may be
// unmapped (the DC segment, large TP/DN buffers), so reading a kept view would crash Python.
#pragma once

#include <nanobind/nanobind.h>

namespace ecluse_python {

/** Maps private zero pages at every page of `array`'s bytes that nothing maps any more (never
 * over a mapping: MAP_FIXED_NOREPLACE), so that reading or writing the kept view after finalize
 * touches zeros or stale bytes instead of faulting. Called by Session.close after finalize. */
void keep_readable(nanobind::handle array);

}  // namespace ecluse_python
