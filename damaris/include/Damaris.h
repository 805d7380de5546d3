/* Damaris 1.x C API on Ecluse (libdamaris): a Damaris program relinks with -ldamaris and runs
 * unchanged. Each damaris_* function is the ecluse_* function of the same name (ecluse.h). */
#ifndef ECLUSE_DAMARIS_H
#define ECLUSE_DAMARIS_H

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

/* The Damaris interface version this library follows: the C API of 1.9.3 (1.7's, plus
 * damaris_get_type, damaris_has_plugin and damaris_error_string); no VisIt or ParaView. */
#define DAMARIS_VERSION_MAJOR 1
#define DAMARIS_VERSION_MINOR 9
#define DAMARIS_VERSION_PATCH 3
#define DAMARIS_VERSION "1.9.3"

/* Stores are built in: HDF5 output is always there, and <pyscript> runs Python on the servers.
 * VisIt and ParaView are not. */
#define HAVE_HDF5_ENABLED
#define HAVE_PYTHON_ENABLED

/* Marks this header as Ecluse's (not in Damaris): programs may test it. */
#define DAMARIS_ECLUSE 1

#ifdef __cplusplus
extern "C" {
#endif

/** Error codes, in Damaris's order; ECLUSE_<NAME> has the same value. Ecluse may also return
 * 23 (ECLUSE_IO_ERROR: a store failed) and 24 (ECLUSE_ALREADY_WRITTEN: the same block twice in
 * one iteration); ecluse_error_message() (ecluse/ecluse.h) explains any code. */
enum {
  DAMARIS_OK = 0,
  DAMARIS_INIT_ERROR,
  DAMARIS_FINALIZE_ERROR,
  DAMARIS_CORE_IS_SERVER,
  DAMARIS_NO_SERVER,
  DAMARIS_ALLOCATION_ERROR,
  DAMARIS_CONFIG_ERROR,
  DAMARIS_ARGUMENT_ERROR,
  DAMARIS_MPI_ERROR,
  DAMARIS_DATASPACE_ERROR,
  DAMARIS_CHANNEL_ERROR,
  DAMARIS_INVALID_TAG,
  DAMARIS_NOT_INITIALIZED,
  DAMARIS_ALREADY_INITIALIZED,
  DAMARIS_UNDEFINED_ACTION,
  DAMARIS_UNDEFINED_PARAMETER,
  DAMARIS_UNDEFINED_VARIABLE,
  DAMARIS_INVALID_BLOCK,
  DAMARIS_INVALID_DIMENSIONS,
  DAMARIS_BLOCK_NOT_FOUND,
  DAMARIS_REACTOR_NOT_FOUND,
  DAMARIS_BIND_ERROR,
  DAMARIS_ERROR_UNKNOWN
};

/** Element type of a variable's layout (damaris_get_type), as in Damaris 1.9 and later.
 * Ecluse's XML types: char/character -> CHAR, short -> SHORT, int/integer -> INT, long -> LONG,
 * float/real -> FLOAT, double -> DOUBLE, string/label -> STRING; Ecluse's unsigned types,
 * uint8/unsigned char -> UCHAR, uint16/unsigned short -> USHORT, uint32/unsigned int -> UINT,
 * uint64/unsigned long -> ULONG. */
typedef enum {
  DAMARIS_TYPE_UNDEFINED = 0,
  DAMARIS_TYPE_CHAR,
  DAMARIS_TYPE_UCHAR,
  DAMARIS_TYPE_SHORT,
  DAMARIS_TYPE_USHORT,
  DAMARIS_TYPE_INT,
  DAMARIS_TYPE_UINT,
  DAMARIS_TYPE_LONG,
  DAMARIS_TYPE_ULONG,
  DAMARIS_TYPE_FLOAT,
  DAMARIS_TYPE_DOUBLE,
  DAMARIS_TYPE_STRING,
  DAMARIS_TYPE_LABEL
} DAMARIS_TYPE_STR;

/** Optional parts a program may ask about (damaris_has_plugin), as in Damaris 1.9 and later. */
typedef enum {
  DAMARIS_HAS_HDF5 = 0,
  DAMARIS_HAS_PYTHON,
  DAMARIS_HAS_PARAVIEW,
  DAMARIS_HAS_VISIT
} DAMARIS_PLUGIN_TYPE;

/** Action bound to an event: event name, source rank, iteration, arguments. */
typedef void (*signal_t)(const char* event, int32_t source, int32_t iteration, const char* args);

/** Reads the XML file (rank 0 reads, every rank validates) and splits comm into clients and
 * servers. A failure is also printed on stderr, from the first rank. */
int damaris_initialize(const char* configfile, MPI_Comm comm);
/** Stops if needed and frees everything; collective; before MPI_Finalize. */
int damaris_finalize(void);
/** Clients: *is_client = 1, returns DAMARIS_OK, or DAMARIS_NO_SERVER without dedicated cores
 * or nodes. Servers: *is_client = 0, serves until every client stopped, returns DAMARIS_OK.
 * Called again after damaris_stop: a restarted phase (collective, every rank calls it). */
int damaris_start(int* is_client);
/** A client is done: DAMARIS_OK with servers, DAMARIS_NO_SERVER without (or on a server). */
int damaris_stop(void);
/** Copies block 0 of a variable for the current iteration. */
int damaris_write(const char* varname, const void* data);
/** Copies one block (0 <= block < domains) of a variable for the current iteration. */
int damaris_write_block(const char* varname, int32_t block, const void* data);
/** Zero copy: *ptr is room for block 0 inside the buffer; fill it, then commit. */
int damaris_alloc(const char* varname, void** ptr);
/** damaris_alloc for one block. */
int damaris_alloc_block(const char* varname, int32_t block, void** ptr);
/** Hands over block 0 allocated in the current iteration. */
int damaris_commit(const char* varname);
/** Hands over a block allocated in the current iteration. */
int damaris_commit_block(const char* varname, int32_t block);
/** damaris_commit for a given iteration; Ecluse accepts the current one only
 * (DAMARIS_BLOCK_NOT_FOUND otherwise). */
int damaris_commit_iteration(const char* varname, int32_t iteration);
/** damaris_commit_block for a given iteration (the current one only). */
int damaris_commit_block_iteration(const char* varname, int32_t block, int32_t iteration);
/** The client gives up block 0: after a commit, nothing to do; before, the block is dropped. */
int damaris_clear(const char* varname);
/** damaris_clear for one block. */
int damaris_clear_block(const char* varname, int32_t block);
/** damaris_clear for a given iteration: an ended one has nothing left to clear (DAMARIS_OK). */
int damaris_clear_iteration(const char* varname, int32_t iteration);
/** damaris_clear_block for a given iteration. */
int damaris_clear_block_iteration(const char* varname, int32_t block, int32_t iteration);
/** Fires an event declared in <actions>. */
int damaris_signal(const char* signal_name);
/** Binds a function as the action of a declared event. */
int damaris_bind(const char* signal_name, signal_t sig);
/** Copies a parameter's value (size: the size of its type) into buffer. An integer parameter
 * is also read into an integer of another size (1, 2, 4 or 8 bytes), converted
 * (DAMARIS_ARGUMENT_ERROR if it does not fit). */
int damaris_parameter_get(const char* param_name, void* buffer, unsigned int size);
/** Sets a parameter; layouts that use it follow at the next write. An integer parameter also
 * takes an integer of another size (a size_t for an int), converted (DAMARIS_ARGUMENT_ERROR if
 * the value does not fit). */
int damaris_parameter_set(const char* param_name, const void* buffer, unsigned int size);
/** Global offset of block 0, one int64 per dimension, in layout order. */
int damaris_set_position(const char* var_name, const int64_t* position);
/** Global offset of a block. */
int damaris_set_block_position(const char* var_name, int32_t block, const int64_t* position);
/** The clients' communicator (MPI_COMM_NULL on servers). */
int damaris_client_comm_get(MPI_Comm* comm);
/** Ends the current iteration. */
int damaris_end_iteration(void);
/** The current iteration. */
int damaris_get_iteration(int* iteration);
/** Element type of a variable's layout into *vartype (Damaris 1.9). Works on clients and
 * servers after initialize. Errors: DAMARIS_UNDEFINED_VARIABLE, DAMARIS_ARGUMENT_ERROR. */
int damaris_get_type(const char* variable_name, DAMARIS_TYPE_STR* vartype);
/** 1 if the part is there (HDF5 and Python are), 0 if not (ParaView, VisIt) (Damaris 1.9). */
int damaris_has_plugin(DAMARIS_PLUGIN_TYPE plugin);
/** A short text for a status code, e.g. "DAMARIS_UNDEFINED_VARIABLE: undefined variable"
 * (Damaris 1.9); static, never NULL. ecluse_error_message() (ecluse/ecluse.h) gives the last
 * error's full message. */
const char* damaris_error_string(int error);

#ifdef __cplusplus
}
#endif

#endif /* ECLUSE_DAMARIS_H */
