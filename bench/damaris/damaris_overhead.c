/* Cost of a damaris_* call against the ecluse_* call it maps to, interleaved in one run (same
 * session, same block, same size): damaris_write vs ecluse_write, 1 KiB to 1 MiB, null store.
 * 1 rank: time partitioning; 2 ranks (ECLUSE_RANKS_PER_NODE unset, one node): dedicated cores.
 * Prints one JSON object on rank 0. Usage: damaris_overhead tp|dc [reps] */
#include <ecluse/ecluse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "Damaris.h"

static const char* kXml =
    "<simulation name=\"overhead\" xmlns=\"http://damaris.gforge.inria.fr/damaris/model\">"
    "<architecture><domains count=\"1\"/><dedicated cores=\"%d\" nodes=\"0\"/>"
    "<buffer name=\"overhead-buffer\" size=\"67108864\"/></architecture>"
    "<data><parameter name=\"N\" type=\"int\" value=\"128\"/>"
    "<layout name=\"l\" type=\"double\" dimensions=\"N\"/>"
    "<variable name=\"v\" layout=\"l\" store=\"none\"/></data>"
    "<storage><store name=\"none\" type=\"null\"/></storage></simulation>";

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median(double* values, int n) {
  qsort(values, (size_t)n, sizeof *values, by_value);
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

static void check(int status, const char* what) {
  if (status == ECLUSE_OK || status == ECLUSE_NO_SERVER) return;
  fprintf(stderr, "%s: %s: %s\n", what, ecluse_status_name(status), ecluse_error_message());
  exit(1);
}

/* One timed write through either API, then the end of the iteration (untimed). */
static double timed_write(int through_damaris, const double* data) {
  const double start = now();
  check(through_damaris ? damaris_write("v", data) : ecluse_write("v", data), "write");
  const double elapsed = now() - start;
  check(ecluse_end_iteration(), "end_iteration");
  return elapsed;
}

static void measure(int bytes, int reps, int first) {
  const int n = bytes / (int)sizeof(double);
  check(damaris_parameter_set("N", &n, sizeof n), "damaris_parameter_set");
  double* data = calloc((size_t)n, sizeof(double));
  double* d = malloc(sizeof(double) * (size_t)reps);
  double* e = malloc(sizeof(double) * (size_t)reps);
  for (int i = 0; i < 8; ++i) timed_write(i % 2, data); /* warm-up */
  for (int i = 0; i < reps; ++i) {
    /* Alternate which goes first so that neither always follows the end of an iteration. */
    if (i % 2) {
      d[i] = timed_write(1, data);
      e[i] = timed_write(0, data);
    } else {
      e[i] = timed_write(0, data);
      d[i] = timed_write(1, data);
    }
  }
  const double md = median(d, reps), me = median(e, reps);
  printf(
      "%s    {\"bytes\": %d, \"reps\": %d, \"damaris_write_median_s\": %.9f, "
      "\"ecluse_write_median_s\": %.9f, \"ratio\": %.4f}",
      first ? "" : ",\n", bytes, reps, md, me, md / me);
  free(data);
  free(d);
  free(e);
}

static void write_config(char* path, int dedicated) {
  FILE* f = fdopen(mkstemp(path), "w");
  fprintf(f, kXml, dedicated);
  fclose(f);
}

int main(int argc, char** argv) {
  const int dc = argc > 1 && strcmp(argv[1], "dc") == 0;
  const int reps = argc > 2 ? atoi(argv[2]) : 200;
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char path[] = "/tmp/damaris_overhead_XXXXXX";
  if (rank == 0) write_config(path, dc);
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  check(damaris_initialize(path, MPI_COMM_WORLD), "damaris_initialize");
  int is_client = 0;
  check(damaris_start(&is_client), "damaris_start");
  if (is_client) {
    printf(
        "{\"benchmark\": \"damaris_overhead\", \"approach\": \"%s\", \"store\": \"null\",\n"
        " \"sizes\": [\n",
        dc ? "dedicated cores (1 client, 1 server)" : "time partitioning");
    for (int bytes = 1024, first = 1; bytes <= 1 << 20; bytes *= 4, first = 0) {
      measure(bytes, bytes >= 1 << 18 ? reps / 4 + 1 : reps, first);
    }
    printf("\n]}\n");
    check(damaris_stop(), "damaris_stop");
  }
  check(damaris_finalize(), "damaris_finalize");
  if (rank == 0) unlink(path);
  MPI_Finalize();
  return 0;
}
