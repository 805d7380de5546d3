/* The test plugin: counts every (iteration, variable, source, block) it is handed and checks
 * each block's type, shape, position and every value against what tests/mpi/BlockValues.hpp
 * writes. The test holds the library open and reads the counters back (plugin_test_*). */
#include <ecluse/ecluse.h>
#include <ecluse/plugin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

ECLUSE_PLUGIN_DECLARE();

enum { kIterations = 8, kVariables = 2, kSources = 8, kBlocks = 2 };

static int seen[kIterations][kVariables][kSources][kBlocks];
static int errors, runs, inits, finishes, user_ok;
static char first_error[512];
static int user_token = 42;

static void fail(const ecluse_plugin_block* b, const char* what) {
  if (errors++ == 0) {
    snprintf(first_error, sizeof first_error, "%s it %d source %d block %d: %s", b->variable,
             (int)b->iteration, (int)b->source, (int)b->block, what);
  }
}

static int dims_are(const ecluse_plugin_block* b, uint64_t d0, uint64_t d1) {
  return b->ndims == 2 && b->dims[0] == d0 && b->dims[1] == d1;
}

/* field: 8x5 doubles, one ghost row each side, at (source*6, block*5);
 * v[i] = it*1e6 + source*1e4 + block*1e3 + i. */
static void check_field(const ecluse_plugin_block* b) {
  if (b->type != ECLUSE_TYPE_FLOAT64 || b->element_size != 8) fail(b, "type");
  if (!dims_are(b, 8, 5)) fail(b, "dims");
  if (b->ghost_lo[0] != 1 || b->ghost_hi[0] != 1 || b->ghost_lo[1] != 0 || b->ghost_hi[1] != 0)
    fail(b, "ghosts");
  if (b->interior[0] != 6 || b->interior[1] != 5) fail(b, "interior");
  if (b->position[0] != b->source * 6 || b->position[1] != b->block * 5) fail(b, "position");
  if (b->global != NULL) fail(b, "global given but not declared");
  const double* v = (const double*)b->data;
  double sum = 0, expected = 0;
  for (int i = 0; i < 40; ++i) {
    const double want = b->iteration * 1e6 + b->source * 1e4 + b->block * 1e3 + i;
    if (v[i] != want) fail(b, "value");
    sum += v[i];
    expected += want;
  }
  if (sum != expected) fail(b, "sum");
}

/* grp/fort: Fortran 3x6 ints, so 6x3 in C order, at Fortran (block*3, source*6);
 * v[i] = it*10000 + source*100 + block*50 + i. */
static void check_fort(const ecluse_plugin_block* b) {
  if (b->type != ECLUSE_TYPE_INT32 || b->element_size != 4) fail(b, "type");
  if (!dims_are(b, 6, 3)) fail(b, "dims");
  if (b->interior[0] != 6 || b->interior[1] != 3) fail(b, "interior");
  if (b->position[0] != b->source * 6 || b->position[1] != b->block * 3) fail(b, "position");
  const int* v = (const int*)b->data;
  for (int i = 0; i < 18; ++i) {
    if (v[i] != b->iteration * 10000 + b->source * 100 + b->block * 50 + i) fail(b, "value");
  }
}

static void count(const ecluse_plugin_block* b, int variable) {
  if (b->iteration < 0 || b->iteration >= kIterations || b->source < 0 || b->source >= kSources ||
      b->block < 0 || b->block >= kBlocks) {
    fail(b, "out of the test's range");
    return;
  }
  ++seen[b->iteration][variable][b->source][b->block];
}

int count_blocks_init(const char* event, int32_t rank, int32_t count, void** user) {
  (void)rank;
  (void)count;
  if (strcmp(event, "count") != 0) return 1;
  ++inits;
  *user = &user_token;
  return 0;
}

int count_blocks(const ecluse_plugin_iteration* it) {
  ++runs;
  if (it->version != ECLUSE_PLUGIN_VERSION || it->struct_size != sizeof *it) ++errors;
  if (it->user == &user_token) ++user_ok;
  if (strcmp(it->event, "count") != 0) ++errors;
  for (size_t i = 0; i < it->block_count; ++i) {
    const ecluse_plugin_block* b = &it->blocks[i];
    if (b->iteration != it->iteration) fail(b, "iteration");
    if (strcmp(b->variable, "field") == 0) {
      count(b, 0);
      check_field(b);
    } else if (strcmp(b->variable, "grp/fort") == 0) {
      count(b, 1);
      check_fort(b);
    } else {
      fail(b, "unknown variable");
    }
  }
  return 0;
}

void count_blocks_finish(const char* event, void* user) {
  if (strcmp(event, "count") == 0 && user == &user_token) ++finishes;
}

/* count_blocks, slowly: under asymmetric dedicated cores the clients then wait for buffer room,
 * and a block freed before the analysis ran would be overwritten (and its values wrong). */
int count_slow_init(const char* event, int32_t rank, int32_t count, void** user) {
  return count_blocks_init(event, rank, count, user);
}
int count_slow(const ecluse_plugin_iteration* it) {
  const struct timespec pause = {0, 30 * 1000 * 1000};
  nanosleep(&pause, NULL);
  return count_blocks(it);
}
void count_slow_finish(const char* event, void* user) {
  count_blocks_finish(event, user);
}

/* Fails on odd iterations: the writer logs it, the data is stored all the same. */
int fail_odd(const ecluse_plugin_iteration* it) {
  return it->iteration % 2 == 1 ? 3 : 0;
}

/* Blocks written without a position are at the origin: a position of zeros, never NULL. */
int at_origin(const ecluse_plugin_iteration* it) {
  ++runs;
  for (size_t i = 0; i < it->block_count; ++i) {
    const ecluse_plugin_block* b = &it->blocks[i];
    if (b->position == NULL) {
      fail(b, "position is NULL");
      continue;
    }
    for (int32_t d = 0; d < b->ndims; ++d) {
      if (b->position[d] != 0) fail(b, "position is not the origin");
    }
  }
  return 0;
}

/* Read by the test. */
void plugin_test_reset(void) {
  memset(seen, 0, sizeof seen);
  errors = runs = inits = finishes = user_ok = 0;
  first_error[0] = '\0';
}
int plugin_test_seen(int iteration, int variable, int source, int block) {
  return seen[iteration][variable][source][block];
}
int plugin_test_counter(const char* name) {
  if (strcmp(name, "errors") == 0) return errors;
  if (strcmp(name, "runs") == 0) return runs;
  if (strcmp(name, "inits") == 0) return inits;
  if (strcmp(name, "finishes") == 0) return finishes;
  if (strcmp(name, "user_ok") == 0) return user_ok;
  return -1;
}
const char* plugin_test_first_error(void) {
  return first_error;
}
