/* ROSS's RISA pattern: a size declared as a parameter valued 0 and given with
 * damaris_parameter_set after start (a size_t for an int parameter, as RISA passes it), and
 * scalars stored through Damaris's type layouts (layout="double", layout="int"). Client 0
 * prints a "case|status|message" line for the write before the size is set and for the
 * parameter_set; every client prints "sizes: ok" at the end. Usage: damaris_sizes <file.xml> */
#include <ecluse/ecluse.h>
#include <stdint.h>
#include <stdio.h>

#include "Damaris.h"

enum { kIterations = 2, kMost = 8 };

static int rank = 0;

static void show(const char* name, int status) {
  if (rank == 0) printf("%s|%s|%s\n", name, ecluse_status_name(status), ecluse_error_message());
}

static int write_iteration(int iteration, size_t n) {
  double values[kMost];
  for (size_t i = 0; i < n; ++i) values[i] = iteration * 1000.0 + rank * 100.0 + (double)i;
  const double now = iteration + rank / 10.0;
  const int count = (int)n;
  if (damaris_write("lp/values", values) != DAMARIS_OK) return 1;
  if (damaris_write("lp/now", &now) != DAMARIS_OK) return 1;
  if (damaris_write("lp/count", &count) != DAMARIS_OK) return 1;
  return damaris_end_iteration() != DAMARIS_OK;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int failed = damaris_initialize(argc > 1 ? argv[1] : "sizes.xml", MPI_COMM_WORLD) != DAMARIS_OK;
  int is_client = 0;
  const int started = damaris_start(&is_client);
  if (!failed && (started == DAMARIS_OK || started == DAMARIS_NO_SERVER) && is_client) {
    MPI_Comm comm;
    damaris_client_comm_get(&comm);
    MPI_Comm_rank(comm, &rank);
    const double early[kMost] = {0};
    const int unset = damaris_write("lp/values", early);
    show("write-unset", unset);
    failed |= unset == DAMARIS_OK;
    /* An empty partition's data() is NULL: the zero size is said, not the NULL. */
    const int unset_null = damaris_write("lp/values", NULL);
    show("write-unset-null", unset_null);
    failed |= unset_null == DAMARIS_OK;
    const size_t n = 3 + (size_t)rank;
    const int set = damaris_parameter_set("num_lp", &n, sizeof n);
    show("set", set);
    failed |= set != DAMARIS_OK;
    for (int iteration = 0; iteration < kIterations && !failed; ++iteration) {
      failed |= write_iteration(iteration, n);
    }
    const int stopped = damaris_stop(); /* NO_SERVER in synchronous mode, as start */
    failed |= stopped != DAMARIS_OK && stopped != DAMARIS_NO_SERVER;
  }
  failed |= damaris_finalize() != DAMARIS_OK;
  if (is_client && !failed) printf("sizes: ok\n");
  fflush(stdout);
  MPI_Finalize();
  return failed;
}
