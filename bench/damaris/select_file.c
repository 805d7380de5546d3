/* select-file= (OPM Flow's GLOBAL_CELL_INDEX) against positions: each client holds n cells of
 * a 1-D field, placed by a global index (select-file=, when the XML says so) that spreads them
 * over the whole dataset (cell k of the concatenation goes to (k * 7919) mod total) or, with
 * "chunks", deals them in runs of 1000 cells over the clients (a grid's partition), else by
 * position (one contiguous block at the client's offset). Prints one JSON line: the seconds of each
 * iteration's write + damaris_end_iteration (time partitioning: the store runs in it).
 * Usage: select_file <config.xml> <cells per client> <iterations> [spread|chunks]
 * (run_select_file.py; cells per client: a multiple of 1000 for chunks) */
#include <Damaris.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc < 4) {
    fprintf(stderr, "usage: %s config.xml cells iterations\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int n = atoi(argv[2]), iterations = atoi(argv[3]);
  if (damaris_initialize(argv[1], MPI_COMM_WORLD) != DAMARIS_OK) MPI_Abort(MPI_COMM_WORLD, 1);
  int is_client = 0, rank = 0, size = 1;
  const int started = damaris_start(&is_client);
  MPI_Comm comm = MPI_COMM_WORLD;
  damaris_client_comm_get(&comm);
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int total = n * size;
  int* index = malloc(sizeof(int) * (size_t)n);
  double* field = malloc(sizeof(double) * (size_t)n);
  const int chunks = argc > 4 && argv[4][0] == 'c'; /* "chunks": runs of 1000 cells */
  for (int k = 0; k < n; ++k) {
    index[k] = chunks ? (k / 1000 * size + rank) * 1000 + k % 1000
                      : (int)(((long long)rank * n + k) * 7919LL % total);
  }
  damaris_parameter_set("n_local", &n, sizeof n);
  damaris_parameter_set("n_total", &total, sizeof total);
  const int64_t offset = (int64_t)rank * n;
  damaris_set_position("GLOBAL_CELL_INDEX", &offset);
  damaris_set_position("FIELD", &offset);
  damaris_write("GLOBAL_CELL_INDEX", index);
  int failures = 0;
  if (rank == 0) printf("{\"seconds\": [");
  for (int it = 0; it < iterations && (started == DAMARIS_OK || started == DAMARIS_NO_SERVER);
       ++it) {
    for (int k = 0; k < n; ++k) field[k] = it * 1e7 + index[k];
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    failures += damaris_write("FIELD", field) != DAMARIS_OK;
    failures += damaris_end_iteration() != DAMARIS_OK;
    double seconds = MPI_Wtime() - t0, slowest = 0;
    MPI_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    if (rank == 0) printf("%s%.6f", it ? ", " : "", slowest);
  }
  if (rank == 0) printf("], \"failures\": %d}\n", failures);
  damaris_stop();
  damaris_finalize();
  free(index);
  free(field);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
