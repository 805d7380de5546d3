/* The C calls that binding_overhead.py compares the Python binding with, each timed in C around
 * the call alone (the ctypes call that reaches them is outside the measurement). */
#include <ecluse/ecluse.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int ecluse_bench_time_write(const char* variable, const void* data, double* seconds) {
  const double start = now();
  const int status = ecluse_write(variable, data);
  *seconds = now() - start;
  return status;
}

int ecluse_bench_time_alloc_commit(const char* variable, double* seconds) {
  void* room = NULL;
  const double start = now();
  int status = ecluse_alloc(variable, &room);
  if (status == ECLUSE_OK) status = ecluse_commit(variable);
  *seconds = now() - start;
  return status;
}
