/* Ecluse iteration plugins: a C function in a shared library that the writers (the servers in
 * DC and DN, the clients in TP) call at the end of every N-th iteration with read-only access to
 * the iteration's blocks in their buffer, no copy. Selected in the configuration by
 *   <event name="stats" action="stats_iteration" library="libstats.so" kind="iteration"
 *          every="1"/>
 * See docs/plugins.md. */
#ifndef ECLUSE_PLUGIN_H
#define ECLUSE_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The version of this interface. A library declares the version it was built against with
 * ECLUSE_PLUGIN_DECLARE(); Ecluse refuses, at initialize, a library declaring another one. */
#define ECLUSE_PLUGIN_VERSION 1

#if defined(__GNUC__)
#define ECLUSE_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define ECLUSE_PLUGIN_EXPORT
#endif
#ifdef __cplusplus
#define ECLUSE_PLUGIN_LINKAGE extern "C" ECLUSE_PLUGIN_EXPORT
#else
#define ECLUSE_PLUGIN_LINKAGE ECLUSE_PLUGIN_EXPORT
#endif

/** Put once in every plugin library (one source file, at global scope, C or C++): exports the
 * version it was built for. */
#define ECLUSE_PLUGIN_DECLARE() \
  ECLUSE_PLUGIN_LINKAGE const uint32_t ecluse_plugin_version = ECLUSE_PLUGIN_VERSION

/** One block of one variable of the iteration, as this writer received it. Arrays have
 * `ndims` elements, in C order (slowest dimension first; Fortran layouts reversed). */
typedef struct ecluse_plugin_block {
  const char* variable;     /**< full name, e.g. "grp/field" */
  int32_t block;            /**< domain id, 0 <= block < domains */
  int32_t source;           /**< the writing client's rank in the clients' communicator */
  int32_t iteration;        /**< the iteration the block belongs to */
  int32_t type;             /**< an ecluse_type (ecluse.h): ECLUSE_TYPE_FLOAT64, ... */
  size_t element_size;      /**< bytes per element */
  int32_t ndims;            /**< number of dimensions (the array's rank) */
  const uint64_t* dims;     /**< local extent, ghosts included: what `data` holds */
  const uint64_t* ghost_lo; /**< ghost cells before the interior, per dimension */
  const uint64_t* ghost_hi; /**< ghost cells after the interior, per dimension */
  const uint64_t* interior; /**< dims - ghost_lo - ghost_hi */
  const int64_t* position;  /**< global offset of the first interior element (zeros when the
                                 block was given none) */
  const uint64_t* global;   /**< the layout's declared global extent; NULL when not declared */
  const void* data;         /**< prod(dims) elements, read-only, valid only during the call */
} ecluse_plugin_block;

/** What an iteration plugin receives. Check `version` (or `struct_size`) before reading fields
 * added by later versions. */
typedef struct ecluse_plugin_iteration {
  uint32_t version;     /**< ECLUSE_PLUGIN_VERSION of the Ecluse that calls */
  uint32_t struct_size; /**< sizeof(ecluse_plugin_iteration) of that Ecluse */
  const char* event;    /**< the <event> name */
  int32_t iteration;
  int32_t writer_rank;  /**< this writer's rank among the writers (the servers in DC and DN) */
  int32_t writer_count; /**< number of writers */
  size_t block_count;
  const ecluse_plugin_block* blocks; /**< every block of the iteration on this writer, once */
  void* user;                        /**< what the optional <action>_init stored, else NULL */
} ecluse_plugin_iteration;

/** The action: called at the end of every `every`-th iteration; 0 for success. A non-zero
 * return is logged with the event's name and the iteration; the data is already stored. */
typedef int (*ecluse_plugin_iteration_t)(const ecluse_plugin_iteration* iteration);

/** Optional `<action>_init`, called once at initialize on every writer; may set `*user`.
 * Non-zero fails initialize. */
typedef int (*ecluse_plugin_init_t)(const char* event, int32_t writer_rank, int32_t writer_count,
                                    void** user);

/** Optional `<action>_finish`, called once at finalize with the user pointer. */
typedef void (*ecluse_plugin_finish_t)(const char* event, void* user);

#ifdef __cplusplus
}
#endif

#endif /* ECLUSE_PLUGIN_H */
