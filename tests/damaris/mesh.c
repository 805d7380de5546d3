/* A Damaris 1.x program written from the interface's description (never from Damaris's code):
 * every call of Damaris.h, the canonical program, and a restarted phase (start, stop, start).
 * Usage: damaris_mesh_c <xml> sync|dedicated. Prints one line per check; exits 1 on the first
 * failure. tests/python/test_damaris.py reads its files back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Damaris.h"

enum { kDomains = 2, kPhases = 2, kIterationsPerPhase = 2, kPoints = 5 };

static int rank = 0;
static int dedicated = 0; /* 1: dedicated cores or nodes; 0: synchronous */

static void expect(int got, int want, const char* what) {
  if (got == want) return;
  fprintf(stderr, "rank %d: %s returned %d, expected %d\n", rank, what, got, want);
  exit(1);
}

/* The action bound to "tick" (runs on the servers, or here in synchronous mode). */
static void on_tick(const char* event, int32_t source, int32_t iteration, const char* args) {
  (void)args;
  printf("action %s from %d at %d\n", event, (int)source, (int)iteration);
  fflush(stdout);
}

static void on_here(const char* event, int32_t source, int32_t iteration, const char* args) {
  (void)args;
  printf("local %s from %d at %d\n", event, (int)source, (int)iteration);
  fflush(stdout);
}

static int parameter(const char* name) {
  int value = 0;
  expect(damaris_parameter_get(name, &value, sizeof value), DAMARIS_OK, "damaris_parameter_get");
  return value;
}

/* Every cell, ghosts included, holds iteration * 1e6 + global block * 1e4 + its index. */
static void write_temperature(int iteration) {
  const int nx = parameter("NX") + 2, ny = parameter("NY") + 2, nz = parameter("NZ") + 2;
  const int n = nx * ny * nz;
  double* cells = malloc(sizeof(double) * (size_t)n);
  for (int b = 0; b < kDomains; ++b) {
    const int global_block = rank * kDomains + b;
    const int64_t position[3] = {0, 0, (int64_t)global_block * (nx - 2)};
    for (int i = 0; i < n; ++i) cells[i] = iteration * 1e6 + global_block * 1e4 + i;
    expect(damaris_set_block_position("fields/temperature", b, position), DAMARIS_OK,
           "damaris_set_block_position");
    expect(damaris_write_block("fields/temperature", b, cells), DAMARIS_OK, "damaris_write_block");
  }
  free(cells);
}

/* Written at every iteration; Damaris (and Ecluse) store a non-time-varying variable once. */
static void write_origin(int iteration) {
  const int origin[3] = {rank, iteration, 7};
  const int64_t zero[1] = {0};
  expect(damaris_set_position("origin", zero), DAMARIS_OK, "damaris_set_position");
  expect(damaris_write("origin", origin), DAMARIS_OK, "damaris_write");
}

static void fill(float* points, int count, int iteration, int block) {
  for (int i = 0; i < count; ++i) {
    points[i] = (float)(iteration * 100 + rank * 10 + block) + (float)i / 8.f;
  }
}

/* Zero copy, Damaris's way: alloc, fill, commit, then clear (the client drops its reference). */
static void write_pressure(int iteration) {
  const int count = parameter("NPTS");
  void* room = NULL;
  expect(damaris_alloc("pressure", &room), DAMARIS_OK, "damaris_alloc");
  expect(damaris_clear("pressure"), DAMARIS_OK, "damaris_clear (given up before commit)");
  expect(damaris_alloc("pressure", &room), DAMARIS_OK, "damaris_alloc (again)");
  fill(room, count, iteration, 0);
  if (iteration % 2 == 0) {
    expect(damaris_commit("pressure"), DAMARIS_OK, "damaris_commit");
    expect(damaris_clear("pressure"), DAMARIS_OK, "damaris_clear (after commit)");
  } else {
    expect(damaris_commit_iteration("pressure", iteration + 1), DAMARIS_BLOCK_NOT_FOUND,
           "damaris_commit_iteration (a later iteration)");
    expect(damaris_commit_iteration("pressure", iteration), DAMARIS_OK, "damaris_commit_iteration");
    expect(damaris_clear_iteration("pressure", iteration), DAMARIS_OK, "damaris_clear_iteration");
    expect(damaris_clear_iteration("pressure", iteration - 1), DAMARIS_OK,
           "damaris_clear_iteration (an ended iteration)");
  }
  expect(damaris_alloc_block("pressure", 1, &room), DAMARIS_OK, "damaris_alloc_block");
  fill(room, count, iteration, 1);
  if (iteration % 2 == 0) {
    expect(damaris_commit_block("pressure", 1), DAMARIS_OK, "damaris_commit_block");
    expect(damaris_clear_block("pressure", 1), DAMARIS_OK, "damaris_clear_block");
  } else {
    expect(damaris_commit_block_iteration("pressure", 1, iteration), DAMARIS_OK,
           "damaris_commit_block_iteration");
    expect(damaris_clear_block_iteration("pressure", 1, iteration), DAMARIS_OK,
           "damaris_clear_block_iteration");
  }
}

static void iterate(int expected_iteration) {
  int iteration = -1;
  expect(damaris_get_iteration(&iteration), DAMARIS_OK, "damaris_get_iteration");
  expect(iteration, expected_iteration, "the iteration number");
  write_temperature(iteration);
  write_origin(iteration);
  write_pressure(iteration);
  expect(damaris_signal("tick"), DAMARIS_OK, "damaris_signal");
  expect(damaris_signal("here"), DAMARIS_OK, "damaris_signal (local)");
  expect(damaris_end_iteration(), DAMARIS_OK, "damaris_end_iteration");
  /* The layout of "pressure" follows its parameter from the next iteration on. */
  const int points = kPoints + iteration + 1;
  expect(damaris_parameter_set("NPTS", &points, sizeof points), DAMARIS_OK,
         "damaris_parameter_set");
}

static void simulate(int phase) {
  MPI_Comm comm = MPI_COMM_NULL;
  expect(damaris_client_comm_get(&comm), DAMARIS_OK, "damaris_client_comm_get");
  int clients = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &clients);
  expect(clients, parameter("CLIENTS"), "the number of clients");
  for (int i = 0; i < kIterationsPerPhase; ++i) iterate(phase * kIterationsPerPhase + i);
  expect(damaris_stop(), dedicated ? DAMARIS_OK : DAMARIS_NO_SERVER, "damaris_stop");
  printf("client %d: phase %d done\n", rank, phase);
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s <config.xml> sync|dedicated\n", argv[0]);
    return 2;
  }
  dedicated = strcmp(argv[2], "dedicated") == 0;
  MPI_Init(&argc, &argv);
  expect(damaris_initialize(argv[1], MPI_COMM_WORLD), DAMARIS_OK, "damaris_initialize");
  expect(damaris_bind("tick", on_tick), DAMARIS_OK, "damaris_bind");
  expect(damaris_bind("here", on_here), DAMARIS_OK, "damaris_bind");
  for (int phase = 0; phase < kPhases; ++phase) {
    int is_client = -1;
    const int err = damaris_start(&is_client);
    expect(err, dedicated ? DAMARIS_OK : DAMARIS_NO_SERVER, "damaris_start");
    if ((err == DAMARIS_OK || err == DAMARIS_NO_SERVER) && is_client) simulate(phase);
    if (!is_client) expect(damaris_stop(), DAMARIS_NO_SERVER, "damaris_stop on a server");
  }
  expect(damaris_finalize(), DAMARIS_OK, "damaris_finalize");
  printf("damaris_mesh: ok\n"); /* before MPI_Finalize: MPICH may drop later output */
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
