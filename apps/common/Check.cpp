// Error handling of the workloads: a failed Ecluse call stops every rank with its message.
// MPI_Abort rather than an exception: the other ranks may be blocked in a collective call.
#include "Check.hpp"

#include <ecluse/ecluse.h>

#include <cstdio>

namespace apps {

void check(int status, const char* call) {
  if (status == ECLUSE_OK) return;
  std::fprintf(stderr, "%s failed: %s: %s\n", call, ecluse_status_name(status),
               ecluse_error_message());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

}  // namespace apps
