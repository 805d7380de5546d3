/* Example iteration plugin: per variable, the minimum, maximum and mean of the interior cells
 * (ghosts left out) of the blocks this writer holds, printed once per iteration:
 *   stats: iteration 3 writer 0 variable temperature: min 1 max 9 mean 5 (640 values)
 * Use it with
 *   <event name="stats" action="stats_iteration" library="libecluse_stats.so" kind="iteration"
 *          every="10"/>
 * Read-only, no copy: the blocks point into the writer's buffer during the call. */
#include <ecluse/ecluse.h>
#include <ecluse/plugin.h>
#include <float.h>
#include <stdio.h>
#include <string.h>

ECLUSE_PLUGIN_DECLARE();

typedef struct summary {
  double min, max, sum;
  uint64_t count;
} summary;

static double element(const ecluse_plugin_block* b, uint64_t index) {
  switch (b->type) {
    case ECLUSE_TYPE_INT8:
      return ((const int8_t*)b->data)[index];
    case ECLUSE_TYPE_INT16:
      return ((const int16_t*)b->data)[index];
    case ECLUSE_TYPE_INT32:
      return ((const int32_t*)b->data)[index];
    case ECLUSE_TYPE_INT64:
      return (double)((const int64_t*)b->data)[index];
    case ECLUSE_TYPE_FLOAT32:
      return ((const float*)b->data)[index];
    default:
      return ((const double*)b->data)[index];
  }
}

static void add(summary* s, double v) {
  if (v < s->min) s->min = v;
  if (v > s->max) s->max = v;
  s->sum += v;
  ++s->count;
}

/* Walks the interior in C order with an odometer over its indices. */
static void add_block(summary* s, const ecluse_plugin_block* b) {
  uint64_t index[16] = {0};
  const int n = b->ndims;
  if (n <= 0 || n > 16) return;
  for (int d = 0; d < n; ++d) {
    if (b->interior[d] == 0) return;
  }
  for (;;) {
    uint64_t offset = 0;
    for (int d = 0; d < n; ++d) offset = offset * b->dims[d] + b->ghost_lo[d] + index[d];
    add(s, element(b, offset));
    int d = n - 1;
    while (d >= 0 && ++index[d] == b->interior[d]) index[d--] = 0;
    if (d < 0) return;
  }
}

int stats_iteration(const ecluse_plugin_iteration* it) {
  for (size_t i = 0; i < it->block_count; ++i) {
    const char* name = it->blocks[i].variable;
    if (it->blocks[i].type == ECLUSE_TYPE_STRING) continue;
    int first = 1; /* each variable once, from its first block on */
    for (size_t j = 0; j < i && first; ++j) first = strcmp(it->blocks[j].variable, name) != 0;
    if (!first) continue;
    summary s = {DBL_MAX, -DBL_MAX, 0.0, 0};
    for (size_t j = i; j < it->block_count; ++j) {
      if (strcmp(it->blocks[j].variable, name) == 0) add_block(&s, &it->blocks[j]);
    }
    if (s.count == 0) continue;
    printf("stats: iteration %d writer %d variable %s: min %g max %g mean %g (%llu values)\n",
           (int)it->iteration, (int)it->writer_rank, name, s.min, s.max, s.sum / (double)s.count,
           (unsigned long long)s.count);
  }
  fflush(stdout);
  return 0;
}
