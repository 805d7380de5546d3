/* Example simulation: each rank owns a slab of a 2-D temperature field (with ghost cells),
 * computes, and hands its data to Ecluse at the end of every iteration. */
#include <ecluse/ecluse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))

#define CHECK(call)                                                           \
  do {                                                                        \
    int err_ = (call);                                                        \
    if (err_ != ECLUSE_OK) {                                                  \
      fprintf(stderr, "%s failed: %s: %s\n", #call, ecluse_status_name(err_), \
              ecluse_error_message());                                        \
      MPI_Abort(MPI_COMM_WORLD, 1);                                           \
    }                                                                         \
  } while (0)

/* Called by Ecluse when the simulation signals "checkpoint" (declared in <actions>). */
void on_checkpoint(const char* event, int32_t source, int32_t iteration, const char* args) {
  (void)args;
  if (source == 0) printf("event %s at iteration %d\n", event, iteration);
}

/* Value of global cell (i, j) at an iteration: known, so readers can check the output. */
static double expected(int iteration, long i, long j) {
  return iteration * 1e6 + i * 1e3 + j;
}

static void compute(double* slab, int nx, int ny, long x0, int iteration) {
  for (int i = 0; i < nx + 2; i++)
    for (int j = 0; j < ny + 2; j++) {
      const int interior = i > 0 && i <= nx && j > 0 && j <= ny;
      slab[i * (ny + 2) + j] = interior ? expected(iteration, x0 + i - 1, j - 1) : -1.0;
    }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const char* config = argc > 1 ? argv[1] : "simulation.xml";
  const int iterations = argc > 2 ? atoi(argv[2]) : 5;
  const int init = ecluse_initialize(config, MPI_COMM_WORLD);
  if (init != ECLUSE_OK) {
    fprintf(stderr, "ecluse_initialize failed: %s: %s\n", ecluse_status_name(init),
            ecluse_error_message());
    /* Every rank gets the same configuration error: end them all cleanly. MPI_Abort would race
     * the launcher, which may kill the ranks before their output is forwarded (MPICH's Hydra). */
    if (init != ECLUSE_CONFIG_ERROR) MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Finalize();
    return 1;
  }
  int is_client = 0;
  CHECK(ecluse_start(&is_client));
  if (is_client) {
    MPI_Comm comm;
    CHECK(ecluse_client_comm_get(&comm));
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int nx_global, ny;
    CHECK(ecluse_parameter_get("NX", &nx_global, sizeof nx_global));
    CHECK(ecluse_parameter_get("NY", &ny, sizeof ny));
    /* The first nx_global % size ranks take one row more, so the slabs tile all the rows. */
    const int nx = nx_global / size + (rank < nx_global % size);
    const int64_t x0 = (int64_t)rank * (nx_global / size) + MIN(rank, nx_global % size);
    CHECK(ecluse_parameter_set("ROWS", &nx, sizeof nx));
    const int64_t position[2] = {x0, 0};
    CHECK(ecluse_set_position("temperature", position));
    double* slab = malloc(sizeof(double) * (size_t)(nx + 2) * (size_t)(ny + 2));
    float* y = malloc(sizeof(float) * (size_t)ny);
    for (int j = 0; j < ny; j++) y[j] = 0.5f * (float)j;
    CHECK(ecluse_write("y", y));
    for (int it = 0; it < iterations; it++) {
      compute(slab, nx, ny, x0, it);
      int stats[4] = {it, rank, nx, ny};
      CHECK(ecluse_write("temperature", slab));
      CHECK(ecluse_write("diagnostics/stats", stats));
      if (it == iterations - 1) CHECK(ecluse_signal("checkpoint"));
      CHECK(ecluse_end_iteration());
    }
    if (rank == 0) printf("heat: %d iterations on %d ranks written\n", iterations, size);
    free(slab);
    free(y);
    CHECK(ecluse_stop());
  }
  CHECK(ecluse_finalize());
  MPI_Finalize();
  return 0;
}
