/* Ecluse C API: hand simulation data over to time partitioning, dedicated cores or nodes.
 * Every function returns an error code; ecluse_error_message() explains the last one. */
#ifndef ECLUSE_ECLUSE_H
#define ECLUSE_ECLUSE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ECLUSE_VERSION_MAJOR 0
#define ECLUSE_VERSION_MINOR 1
#define ECLUSE_VERSION_PATCH 0

/** Error codes; the order follows Damaris 1.x so that its codes map one to one. */
typedef enum ecluse_status {
  ECLUSE_OK = 0,
  ECLUSE_INIT_ERROR,
  ECLUSE_FINALIZE_ERROR,
  ECLUSE_CORE_IS_SERVER,
  ECLUSE_NO_SERVER,
  ECLUSE_ALLOCATION_ERROR,
  ECLUSE_CONFIG_ERROR,
  ECLUSE_ARGUMENT_ERROR,
  ECLUSE_MPI_ERROR,
  ECLUSE_DATASPACE_ERROR,
  ECLUSE_CHANNEL_ERROR,
  ECLUSE_INVALID_TAG,
  ECLUSE_NOT_INITIALIZED,
  ECLUSE_ALREADY_INITIALIZED,
  ECLUSE_UNDEFINED_ACTION,
  ECLUSE_UNDEFINED_PARAMETER,
  ECLUSE_UNDEFINED_VARIABLE,
  ECLUSE_INVALID_BLOCK,
  ECLUSE_INVALID_DIMENSIONS,
  ECLUSE_BLOCK_NOT_FOUND,
  ECLUSE_REACTOR_NOT_FOUND,
  ECLUSE_BIND_ERROR,
  ECLUSE_ERROR_UNKNOWN,
  ECLUSE_IO_ERROR,
  ECLUSE_STATUS_COUNT
} ecluse_status;

/** Element types of layouts (ecluse_variable_shape); the order of the XML types. */
typedef enum ecluse_type {
  ECLUSE_TYPE_INT8 = 0,
  ECLUSE_TYPE_INT16,
  ECLUSE_TYPE_INT32,
  ECLUSE_TYPE_INT64,
  ECLUSE_TYPE_FLOAT32,
  ECLUSE_TYPE_FLOAT64,
  ECLUSE_TYPE_STRING,
  ECLUSE_TYPE_COUNT
} ecluse_type;

/** Most dimensions a layout may have. */
#define ECLUSE_MAX_DIMENSIONS 16

/** Action bound to an event: event name, source rank, iteration, arguments. */
typedef void (*ecluse_signal_t)(const char* event, int32_t source, int32_t iteration,
                                const char* args);

/** Reads the XML file on rank 0 of comm, broadcasts and validates it on every rank. */
int ecluse_initialize(const char* config_file, MPI_Comm comm);
/** Same as ecluse_initialize with the XML text itself (programmatic configuration). */
int ecluse_initialize_string(const char* config_xml, MPI_Comm comm);
/** Sets *is_client to 1 on simulation ranks (returns at once), 0 on server ranks (returns
 * when all their clients stopped). */
int ecluse_start(int* is_client);
/** The communicator of the simulation ranks only. */
int ecluse_client_comm_get(MPI_Comm* comm);
int ecluse_write(const char* variable, const void* data);
int ecluse_write_block(const char* variable, int32_t block, const void* data);
/** Zero copy: *data points to room for the block inside Ecluse's buffer (the node's shared
 * memory with dedicated cores); fill it, then commit (hand it over) or clear (give it up). */
int ecluse_alloc(const char* variable, void** data);
int ecluse_alloc_block(const char* variable, int32_t block, void** data);
int ecluse_commit(const char* variable);
int ecluse_commit_block(const char* variable, int32_t block);
int ecluse_clear(const char* variable);
int ecluse_clear_block(const char* variable, int32_t block);
int ecluse_parameter_get(const char* name, void* buffer, unsigned int size);
int ecluse_parameter_set(const char* name, const void* buffer, unsigned int size);
/** Global offset of block 0 (or of a block), one int64 per dimension, in layout order. */
int ecluse_set_position(const char* variable, const int64_t* position);
int ecluse_set_block_position(const char* variable, int32_t block, const int64_t* position);
int ecluse_signal(const char* event);
int ecluse_bind(const char* event, ecluse_signal_t action);
int ecluse_end_iteration(void);
int ecluse_get_iteration(int* iteration);
int ecluse_stop(void);
int ecluse_finalize(void);
/** A counter of this rank's transport or server, by name (e.g. "dn.credit_waits",
 * "dn.peak_held_bytes"); call after stop or start, before finalize. */
int ecluse_get_statistic(const char* name, double* value);
/** A variable's block as the simulation passes it (ghosts included), with the current
 * parameters: element type (ecluse_type), number of dimensions, and the dimensions in C order
 * (slowest first; a layout with language="fortran" has its declared dimensions reversed).
 * Writes at most max_dims dimensions; ECLUSE_ARGUMENT_ERROR if the layout has more. */
int ecluse_variable_shape(const char* variable, int* type, int* ndims, int64_t* dims,
                          int max_dims);
/** Makes status and message the calling thread's last error, as ecluse_error_message reports
 * it; returns status. For bindings that check arguments before calling the library. */
int ecluse_set_error(int status, const char* message);
/** Message of the last error of the calling thread ("" if none). */
const char* ecluse_error_message(void);
/** Short name of a status code, e.g. "ECLUSE_CONFIG_ERROR". */
const char* ecluse_status_name(int status);

#ifdef __cplusplus
}
#endif

#endif /* ECLUSE_ECLUSE_H */
