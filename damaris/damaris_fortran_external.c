/* Damaris's Fortran calls as external procedures, for programs that call damaris_<name>_f
 * without `use damaris` (implicit interfaces, as Damaris's own examples do): each takes its
 * arguments by reference, Fortran strings with their hidden length at the end, and calls the C
 * function of Damaris.h. Symbols: the name plus one underscore (gfortran, ifx, flang). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "Damaris.h"

/* damaris.cpp: string parameters as Fortran character buffers (blank-padded, no NUL). */
int damaris_fortran_parameter_get(const char* name, void* buffer, int size);
int damaris_fortran_parameter_set(const char* name, const void* buffer, int size);

/* Fortran strings carry no NUL and end with blanks: a NUL-terminated copy without them. */
static char* c_string(const char* text, size_t length) {
  while (length > 0 && text[length - 1] == ' ') --length;
  char* copy = malloc(length + 1);
  if (!copy) return NULL;
  memcpy(copy, text, length);
  copy[length] = '\0';
  return copy;
}

/* Calls `call` with the C copy of a Fortran name; DAMARIS_ALLOCATION_ERROR without memory. */
#define WITH_NAME(text, length, err, call)             \
  do {                                                 \
    char* name = c_string(text, length);               \
    *(err) = name ? (call) : DAMARIS_ALLOCATION_ERROR; \
    free(name);                                        \
  } while (0)

void damaris_initialize_f_(const char* file, const MPI_Fint* comm, int* err, size_t length);
void damaris_finalize_f_(int* err);
void damaris_start_f_(int* is_client, int* err);
void damaris_stop_f_(int* err);
void damaris_write_f_(const char* var, const void* data, int* err, size_t length);
void damaris_write_block_f_(const char* var, const int* block, const void* data, int* err,
                            size_t length);
void* damaris_alloc_f_(const char* var, int* err, size_t length);
void* damaris_alloc_block_f_(const char* var, const int* block, int* err, size_t length);
void damaris_commit_f_(const char* var, int* err, size_t length);
void damaris_commit_block_f_(const char* var, const int* block, int* err, size_t length);
void damaris_commit_iteration_f_(const char* var, const int* iteration, int* err, size_t length);
void damaris_commit_block_iteration_f_(const char* var, const int* block, const int* iteration,
                                       int* err, size_t length);
void damaris_clear_f_(const char* var, int* err, size_t length);
void damaris_clear_block_f_(const char* var, const int* block, int* err, size_t length);
void damaris_clear_iteration_f_(const char* var, const int* iteration, int* err, size_t length);
void damaris_clear_block_iteration_f_(const char* var, const int* block, const int* iteration,
                                      int* err, size_t length);
void damaris_signal_f_(const char* event, int* err, size_t length);
void damaris_parameter_get_f_(const char* param, void* buffer, const int* size, int* err,
                              size_t length);
void damaris_parameter_set_f_(const char* param, const void* buffer, const int* size, int* err,
                              size_t length);
void damaris_set_position_f_(const char* var, const int64_t* position, int* err, size_t length);
void damaris_set_block_position_f_(const char* var, const int* block, const int64_t* position,
                                   int* err, size_t length);
void damaris_client_comm_get_f_(MPI_Fint* comm, int* err);
void damaris_end_iteration_f_(int* err);
void damaris_get_iteration_f_(int* iteration, int* err);
void damaris_get_type_f_(const char* var, int* vartype, int* err, size_t length);
void damaris_has_plugin_f_(const int* plugin, int* has);
void damaris_error_string_f_(const int* error, char* text, size_t length);

void damaris_initialize_f_(const char* file, const MPI_Fint* comm, int* err, size_t length) {
  WITH_NAME(file, length, err, damaris_initialize(name, MPI_Comm_f2c(*comm)));
}

void damaris_finalize_f_(int* err) {
  *err = damaris_finalize();
}

void damaris_start_f_(int* is_client, int* err) {
  *err = damaris_start(is_client);
}

void damaris_stop_f_(int* err) {
  *err = damaris_stop();
}

void damaris_write_f_(const char* var, const void* data, int* err, size_t length) {
  WITH_NAME(var, length, err, damaris_write(name, data));
}

void damaris_write_block_f_(const char* var, const int* block, const void* data, int* err,
                            size_t length) {
  WITH_NAME(var, length, err, damaris_write_block(name, *block, data));
}

void* damaris_alloc_f_(const char* var, int* err, size_t length) {
  void* room = NULL;
  WITH_NAME(var, length, err, damaris_alloc(name, &room));
  return room;
}

void* damaris_alloc_block_f_(const char* var, const int* block, int* err, size_t length) {
  void* room = NULL;
  WITH_NAME(var, length, err, damaris_alloc_block(name, *block, &room));
  return room;
}

void damaris_commit_f_(const char* var, int* err, size_t length) {
  WITH_NAME(var, length, err, damaris_commit(name));
}

void damaris_commit_block_f_(const char* var, const int* block, int* err, size_t length) {
  WITH_NAME(var, length, err, damaris_commit_block(name, *block));
}

void damaris_commit_iteration_f_(const char* var, const int* iteration, int* err, size_t length) {
  WITH_NAME(var, length, err, damaris_commit_iteration(name, *iteration));
}

void damaris_commit_block_iteration_f_(const char* var, const int* block, const int* iteration,
                                       int* err, size_t length) {
  WITH_NAME(var, length, err, damaris_commit_block_iteration(name, *block, *iteration));
}

void damaris_clear_f_(const char* var, int* err, size_t length) {
  WITH_NAME(var, length, err, damaris_clear(name));
}

void damaris_clear_block_f_(const char* var, const int* block, int* err, size_t length) {
  WITH_NAME(var, length, err, damaris_clear_block(name, *block));
}

void damaris_clear_iteration_f_(const char* var, const int* iteration, int* err, size_t length) {
  WITH_NAME(var, length, err, damaris_clear_iteration(name, *iteration));
}

void damaris_clear_block_iteration_f_(const char* var, const int* block, const int* iteration,
                                      int* err, size_t length) {
  WITH_NAME(var, length, err, damaris_clear_block_iteration(name, *block, *iteration));
}

void damaris_signal_f_(const char* event, int* err, size_t length) {
  WITH_NAME(event, length, err, damaris_signal(name));
}

void damaris_parameter_get_f_(const char* param, void* buffer, const int* size, int* err,
                              size_t length) {
  WITH_NAME(param, length, err, damaris_fortran_parameter_get(name, buffer, *size));
}

void damaris_parameter_set_f_(const char* param, const void* buffer, const int* size, int* err,
                              size_t length) {
  WITH_NAME(param, length, err, damaris_fortran_parameter_set(name, buffer, *size));
}

void damaris_set_position_f_(const char* var, const int64_t* position, int* err, size_t length) {
  WITH_NAME(var, length, err, damaris_set_position(name, position));
}

void damaris_set_block_position_f_(const char* var, const int* block, const int64_t* position,
                                   int* err, size_t length) {
  WITH_NAME(var, length, err, damaris_set_block_position(name, *block, position));
}

void damaris_client_comm_get_f_(MPI_Fint* comm, int* err) {
  MPI_Comm c = MPI_COMM_NULL;
  *err = damaris_client_comm_get(&c);
  if (*err == DAMARIS_OK) *comm = MPI_Comm_c2f(c);
}

void damaris_end_iteration_f_(int* err) {
  *err = damaris_end_iteration();
}

void damaris_get_iteration_f_(int* iteration, int* err) {
  *err = damaris_get_iteration(iteration);
}

/* Damaris 1.9's additions, as module damaris gives them. */
void damaris_get_type_f_(const char* var, int* vartype, int* err, size_t length) {
  DAMARIS_TYPE_STR type = DAMARIS_TYPE_UNDEFINED;
  WITH_NAME(var, length, err, damaris_get_type(name, &type));
  *vartype = (int)type;
}

void damaris_has_plugin_f_(const int* plugin, int* has) {
  *has = damaris_has_plugin((DAMARIS_PLUGIN_TYPE)*plugin);
}

/* Blank-padded to the Fortran length, cut if longer. */
void damaris_error_string_f_(const int* error, char* text, size_t length) {
  const char* said = damaris_error_string(*error);
  const size_t n = strlen(said) < length ? strlen(said) : length;
  memcpy(text, said, n);
  memset(text + n, ' ', length - n);
}
