// What the fault programs share: a call's status printed on stderr the way the Python tests
// read it ("rank R: <call>: <status name>: <message>").
#pragma once

#include <cstdio>

#include "ecluse/ecluse.h"

namespace ecluse::fault {

/** True for ECLUSE_OK; else prints the rank, the call, the status and the message. */
inline bool check(int rank, const char* call, int status) {
  if (status == ECLUSE_OK) return true;
  std::fprintf(stderr, "rank %d: %s: %s: %s\n", rank, call, ecluse_status_name(status),
               ecluse_error_message());
  return false;
}

}  // namespace ecluse::fault
