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
  /** The same variable and block was already written (or committed) in this iteration. */
  ECLUSE_ALREADY_WRITTEN,
  ECLUSE_STATUS_COUNT
} ecluse_status;

/** Element types of layouts and parameters (ecluse_variable_shape, ecluse_parameter_type).
 * The unsigned types come after ECLUSE_TYPE_STRING: the values of the others never change. */
typedef enum ecluse_type {
  ECLUSE_TYPE_INT8 = 0,
  ECLUSE_TYPE_INT16,
  ECLUSE_TYPE_INT32,
  ECLUSE_TYPE_INT64,
  ECLUSE_TYPE_FLOAT32,
  ECLUSE_TYPE_FLOAT64,
  ECLUSE_TYPE_STRING,
  ECLUSE_TYPE_UINT8,
  ECLUSE_TYPE_UINT16,
  ECLUSE_TYPE_UINT32,
  ECLUSE_TYPE_UINT64,
  ECLUSE_TYPE_COUNT
} ecluse_type;

/** Most dimensions a layout may have. */
#define ECLUSE_MAX_DIMENSIONS 16

/** Action bound to an event: event name, source rank, iteration, arguments. */
typedef void (*ecluse_signal_t)(const char* event, int32_t source, int32_t iteration,
                                const char* args);

/* Errors common to the functions below, not repeated for each: ECLUSE_NOT_INITIALIZED before
 * ecluse_initialize or after ecluse_finalize; ECLUSE_ARGUMENT_ERROR when a pointer argument is
 * NULL; ECLUSE_CORE_IS_SERVER when a function meant for clients is called on a server rank;
 * ECLUSE_ALLOCATION_ERROR when memory runs out; ECLUSE_ERROR_UNKNOWN for anything unexpected.
 * Every failure leaves its message for ecluse_error_message(). */

/** Reads the XML file on rank 0 of comm, broadcasts and validates it on every rank, and sets
 * up the approach it names (collective over comm). Errors: ECLUSE_ALREADY_INITIALIZED;
 * ECLUSE_INIT_ERROR (MPI not initialized, a placement the ranks cannot satisfy);
 * ECLUSE_CONFIG_ERROR (unreadable file, invalid XML or values, with file:line:column),
 * returned on every rank alike; ECLUSE_CHANNEL_ERROR (the node's shared memory cannot be
 * made). */
int ecluse_initialize(const char* config_file, MPI_Comm comm);
/** Same as ecluse_initialize with the XML text itself (programmatic configuration); same
 * errors, messages located in "<string>". Every rank must pass the same text: otherwise every
 * rank returns ECLUSE_CONFIG_ERROR naming the first rank whose text differs from rank 0's. */
int ecluse_initialize_string(const char* config_xml, MPI_Comm comm);
/** Sets *is_client to 1 on simulation ranks (returns at once), 0 on server ranks (returns
 * when all their clients stopped). Errors on a server: ECLUSE_CHANNEL_ERROR when a client died.
 * A server whose store fails goes on serving (later iterations may still be stored): the
 * failure reaches the clients as ECLUSE_IO_ERROR from a later ecluse_end_iteration (from
 * ecluse_finalize at the latest), and the server itself from ecluse_finalize, not from here.
 * After ecluse_stop, start again opens a new phase (Damaris's restart): it is then collective
 * over the initialize communicator (every rank calls it, servers once they returned from the
 * previous start); clients write again, continuing the iteration count from the furthest any
 * client got (all clients go on at the same iteration), and servers serve until their clients
 * stop again. */
int ecluse_start(int* is_client);
/** The communicator of the simulation ranks only (MPI_COMM_NULL on servers). */
int ecluse_client_comm_get(MPI_Comm* comm);
/** Hands block 0 of a variable over (copied before return; the simulation may reuse data).
 * Errors: ECLUSE_UNDEFINED_VARIABLE; ECLUSE_ARGUMENT_ERROR (data NULL, after ecluse_stop);
 * ECLUSE_INVALID_DIMENSIONS (a layout that evaluates to no valid shape);
 * ECLUSE_ALLOCATION_ERROR (a block larger than this client's share of the buffer);
 * ECLUSE_CHANNEL_ERROR (the server is gone, or ECLUSE_TIMEOUT seconds passed while waiting for
 * room); in time partitioning none of the store errors, which come at ecluse_end_iteration. */
int ecluse_write(const char* variable, const void* data);
/** ecluse_write for one block (domain) of a variable: 0 <= block < its domains; same errors
 * and ECLUSE_INVALID_BLOCK for a block out of range. */
int ecluse_write_block(const char* variable, int32_t block, const void* data);
/** ecluse_write_block of data known to hold `bytes` bytes: same errors and
 * ECLUSE_ARGUMENT_ERROR, naming both sizes, when the block (ghosts included) is larger, which
 * ecluse_write_block would read past the data's end; larger data gives its first bytes. */
int ecluse_write_block_sized(const char* variable, int32_t block, const void* data, uint64_t bytes);
/** ecluse_write of an array whose elements are not contiguous in memory: the interior of an
 * array with ghost cells, a strided slice, an array in the other language's order. Element
 * (i_0, ..., i_{rank-1}) of an array of `extents` (C order: the last index varies fastest) is at
 * (const char*)data + i_0 * byte_strides[0] + ... + i_{rank-1} * byte_strides[rank-1]; strides
 * are in bytes and may be negative. The array's elements, taken in that C order, are the
 * block's: their count must be the layout's (any shape of that size). They are copied once,
 * straight into Ecluse's buffer, as ecluse_write copies a contiguous array. Errors: those of
 * ecluse_write; ECLUSE_ARGUMENT_ERROR (rank outside 1..ECLUSE_MAX_DIMENSIONS, a negative
 * extent, extents or byte_strides NULL); ECLUSE_INVALID_DIMENSIONS (the element count is not
 * the layout's). */
int ecluse_write_strided(const char* variable, const void* data, int32_t rank,
                         const int64_t* extents, const int64_t* byte_strides);
/** ecluse_write_strided for one block (domain) of a variable, as ecluse_write_block. */
int ecluse_write_block_strided(const char* variable, int32_t block, const void* data, int32_t rank,
                               const int64_t* extents, const int64_t* byte_strides);
/** Zero copy: *data points to room for the block inside Ecluse's buffer (the node's shared
 * memory with dedicated cores); fill it, then commit (hand it over) or clear (give it up) in
 * the same iteration: a block still allocated when its iteration ends is dropped, not stored
 * (warned once, counted by the statistic "client.dropped_allocations"). While a block is
 * allocated, ecluse_write of it returns ECLUSE_ARGUMENT_ERROR. Errors: those of ecluse_write. */
int ecluse_alloc(const char* variable, void** data);
/** ecluse_alloc for one block; ECLUSE_INVALID_BLOCK for a block out of range. */
int ecluse_alloc_block(const char* variable, int32_t block, void** data);
/** Hands over the block of the last ecluse_alloc of this variable. Errors:
 * ECLUSE_UNDEFINED_VARIABLE; ECLUSE_BLOCK_NOT_FOUND (nothing allocated); ECLUSE_CHANNEL_ERROR. */
int ecluse_commit(const char* variable);
/** ecluse_commit for one block; ECLUSE_INVALID_BLOCK for a block out of range. */
int ecluse_commit_block(const char* variable, int32_t block);
/** Gives up the block of the last ecluse_alloc without writing it. Errors:
 * ECLUSE_UNDEFINED_VARIABLE; ECLUSE_BLOCK_NOT_FOUND (nothing allocated). */
int ecluse_clear(const char* variable);
/** ecluse_clear for one block; ECLUSE_INVALID_BLOCK for a block out of range. A block already
 * written or committed in this iteration belongs to Ecluse: clearing it does nothing (OK). */
int ecluse_clear_block(const char* variable, int32_t block);
/** ecluse_commit_block for the block allocated in a given iteration. Ecluse allocates blocks
 * for the current iteration only (ecluse_get_iteration), so that iteration is the only one
 * accepted: any other returns ECLUSE_BLOCK_NOT_FOUND, naming the current one. */
int ecluse_commit_block_iteration(const char* variable, int32_t block, int32_t iteration);
/** ecluse_commit_block_iteration for block 0. */
int ecluse_commit_iteration(const char* variable, int32_t iteration);
/** ecluse_clear_block for a given iteration: the current one clears as ecluse_clear_block; an
 * earlier one has nothing left to give up (its blocks were handed over or dropped when it
 * ended) and returns ECLUSE_OK; a later one returns ECLUSE_BLOCK_NOT_FOUND. */
int ecluse_clear_block_iteration(const char* variable, int32_t block, int32_t iteration);
/** ecluse_clear_block_iteration for block 0. */
int ecluse_clear_iteration(const char* variable, int32_t iteration);
/** 1 when this run has server ranks (dedicated cores or nodes), 0 in time partitioning. */
int ecluse_has_servers(int* has_servers);
/** Copies a parameter's value (size bytes of its declared type) into buffer. Errors:
 * ECLUSE_UNDEFINED_PARAMETER; ECLUSE_ARGUMENT_ERROR (size is not the size of its type). */
int ecluse_parameter_get(const char* name, void* buffer, unsigned int size);
/** Sets a parameter on this client; layouts that use it take the new value at the next write.
 * Errors: those of ecluse_parameter_get, and ECLUSE_INVALID_DIMENSIONS when a layout that uses
 * it no longer evaluates to a valid shape. */
int ecluse_parameter_set(const char* name, const void* buffer, unsigned int size);
/** Global offset of block 0 (or of a block), one int64 per dimension, in layout order; it holds
 * for the block's later writes and allocs. A block already allocated keeps the position it had
 * at ecluse_alloc (as in Damaris): set the position before the alloc. Errors:
 * ECLUSE_UNDEFINED_VARIABLE; ECLUSE_INVALID_BLOCK. */
int ecluse_set_position(const char* variable, const int64_t* position);
/** ecluse_set_position for one block. */
int ecluse_set_block_position(const char* variable, int32_t block, const int64_t* position);
/** ecluse_set_block_position with the offsets in C order (slowest-varying dimension first)
 * whatever the layout's language: Damaris's convention (its damaris_set_position takes the
 * position as it is, so a Fortran program passes it reversed). libdamaris calls it. */
int ecluse_set_block_position_c_order(const char* variable, int32_t block, const int64_t* position);
/** Raises a user event declared in <actions>: run here (execution="local", or time
 * partitioning) or on the servers (scope core, bcast or group). Errors: ECLUSE_UNDEFINED_ACTION
 * (not declared); ECLUSE_BIND_ERROR (declared, but run here and its function is neither bound
 * nor found in the program or its library); ECLUSE_CHANNEL_ERROR. */
int ecluse_signal(const char* event);
/** Binds a function to a declared event (instead of a library symbol), on the ranks that run
 * it. Errors: ECLUSE_UNDEFINED_ACTION (not declared); ECLUSE_BIND_ERROR (no function). */
int ecluse_bind(const char* event, ecluse_signal_t action);
/* ecluse_write, ecluse_write_block, ecluse_alloc and ecluse_alloc_block also return
 * ECLUSE_ALREADY_WRITTEN for a block of a variable already handed over in this iteration. */
/** Ends this client's iteration: time partitioning runs the stores now (ECLUSE_IO_ERROR,
 * ECLUSE_DATASPACE_ERROR, ECLUSE_MPI_ERROR, ECLUSE_INVALID_DIMENSIONS, collective over the
 * clients); dedicated cores and nodes notify the server and return (ECLUSE_CHANNEL_ERROR;
 * ECLUSE_IO_ERROR when a dedicated core or node failed to store an earlier iteration). */
int ecluse_end_iteration(void);
/** The current iteration of this client (0 before the first ecluse_end_iteration). */
int ecluse_get_iteration(int* iteration);
/** Tells the servers this client sends nothing more and waits until its last data is held by
 * them (ECLUSE_CHANNEL_ERROR when the server is gone or after ECLUSE_TIMEOUT). Idempotent. */
int ecluse_stop(void);
/** Stops if needed, restores CPU frequencies, gathers and writes the run report, frees
 * everything (collective over the initialize communicator). Errors: those of ecluse_stop; a
 * report that cannot be written is a warning in the log, not an error. */
int ecluse_finalize(void);
/** A counter of this rank's transport or server, by name (e.g. "dn.credit_waits",
 * "dn.peak_held_bytes"); call after stop or start, before finalize. Errors:
 * ECLUSE_ARGUMENT_ERROR for an unknown name (the message lists the known ones). */
int ecluse_get_statistic(const char* name, double* value);
/** A variable's block as the simulation passes it (ghosts included), with the current
 * parameters: element type (ecluse_type), number of dimensions, and the dimensions in C order
 * (slowest first; a layout with language="fortran" has its declared dimensions reversed).
 * Writes at most max_dims dimensions. Errors: ECLUSE_UNDEFINED_VARIABLE; ECLUSE_ARGUMENT_ERROR
 * if the layout has more than max_dims dimensions (*ndims is set all the same). */
int ecluse_variable_shape(const char* variable, int* type, int* ndims, int64_t* dims, int max_dims);
/** Copies the full name of a variable's layout (e.g. "group/slab"), NUL-terminated, into
 * buffer. Errors: ECLUSE_UNDEFINED_VARIABLE; ECLUSE_ARGUMENT_ERROR if size is too small (the
 * message gives the size needed). */
int ecluse_variable_layout(const char* variable, char* buffer, unsigned int size);
/** Element type (ecluse_type) of a parameter. Errors: ECLUSE_UNDEFINED_PARAMETER. */
int ecluse_parameter_type(const char* name, int* type);
/** Element type (ecluse_type) of a variable's layout, on clients and servers. Errors:
 * ECLUSE_UNDEFINED_VARIABLE. */
int ecluse_variable_type(const char* variable, int* type);
/** Makes status and message the calling thread's last error, as ecluse_error_message reports
 * it; returns status. For bindings that check arguments before calling the library. Never
 * fails; works before initialize. */
int ecluse_set_error(int status, const char* message);
/** Message of the last error of the calling thread ("" if none); valid until the thread's
 * next Ecluse call. Works before initialize. */
const char* ecluse_error_message(void);
/** Short name of a status code, e.g. "ECLUSE_CONFIG_ERROR"; "ECLUSE_UNKNOWN_STATUS" for a
 * value outside the enum. Works before initialize. */
const char* ecluse_status_name(int status);

#ifdef __cplusplus
}
#endif

#endif /* ECLUSE_ECLUSE_H */
