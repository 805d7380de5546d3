/* PDI's plain-Damaris heat example (pdidev/pdi plugins/damaris/example/ex_damaris_only): the
 * layout's sizes are parameters declared with placeholder values of 1 (with ghosts 1:1, not a
 * valid layout) and given one by one with damaris_parameter_set before the first write, so the
 * layout is invalid in between. Client 0 prints a "case|status|message" line for the write
 * before the sizes are set and for the first parameter_set; every client prints
 * "placeholders: ok" at the end. Usage: damaris_placeholders <file.xml> [early] (early: write
 * before the sizes are set, refused) */
#include <ecluse/ecluse.h>
#include <stdint.h>
#include <stdio.h>

#include "Damaris.h"

enum { kIterations = 2, kRows = 4, kCols = 5 };

static int rank = 0, clients = 1;

static void show(const char* name, int status) {
  if (rank == 0) printf("%s|%s|%s\n", name, ecluse_status_name(status), ecluse_error_message());
}

static int set_sizes(void) {
  const int sizes[4] = {kRows + 2, kCols + 2, kRows * clients, kCols};
  const char* names[4] = {"dim0", "dim1", "global0", "global1"};
  for (int i = 0; i < 4; ++i) {
    const int status = damaris_parameter_set(names[i], &sizes[i], sizeof(int));
    if (i == 0) show("set-first", status);
    if (status != DAMARIS_OK) return 1;
  }
  const int64_t position[2] = {(int64_t)rank * kRows, 0};
  return damaris_set_position("field", position) != DAMARIS_OK;
}

static int write_iteration(int iteration) {
  double field[kRows + 2][kCols + 2];
  for (int i = 0; i < kRows + 2; ++i) {
    for (int j = 0; j < kCols + 2; ++j) {
      const int interior = i > 0 && i <= kRows && j > 0 && j <= kCols;
      field[i][j] = interior ? iteration * 1000.0 + (rank * kRows + i - 1) * 10.0 + (j - 1) : -1;
    }
  }
  if (damaris_write("field", field) != DAMARIS_OK) return 1;
  return damaris_end_iteration() != DAMARIS_OK;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int failed = damaris_initialize(argc > 1 ? argv[1] : "heat.xml", MPI_COMM_WORLD) != DAMARIS_OK;
  const int early_write = argc > 2;
  int is_client = 0;
  const int started = damaris_start(&is_client);
  if (!failed && (started == DAMARIS_OK || started == DAMARIS_NO_SERVER) && is_client) {
    MPI_Comm comm;
    damaris_client_comm_get(&comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &clients);
    if (early_write) { /* placeholders of 1: an invalid layout, its write refused */
      const double early[9] = {0};
      const int unset = damaris_write("field", early);
      show("write-early", unset);
      failed |= unset == DAMARIS_OK;
    }
    failed |= set_sizes();
    for (int iteration = 0; iteration < kIterations && !failed; ++iteration) {
      failed |= write_iteration(iteration);
    }
    const int stopped = damaris_stop(); /* NO_SERVER in synchronous mode, as start */
    failed |= stopped != DAMARIS_OK && stopped != DAMARIS_NO_SERVER;
  }
  failed |= damaris_finalize() != DAMARIS_OK;
  if (is_client && !failed) printf("placeholders: ok\n");
  fflush(stdout);
  MPI_Finalize();
  return failed;
}
