/* C side of the Fortran module: communicators cross the language boundary as MPI_Fint, which
 * only C can turn into an MPI_Comm (MPI_Comm_f2c) and back (MPI_Comm_c2f). */
#include <ecluse/ecluse.h>

int ecluse_fortran_initialize(const char* config_file, MPI_Fint comm);
int ecluse_fortran_initialize_string(const char* config_xml, MPI_Fint comm);
int ecluse_fortran_client_comm_get(MPI_Fint* comm);

int ecluse_fortran_initialize(const char* config_file, MPI_Fint comm) {
  return ecluse_initialize(config_file, MPI_Comm_f2c(comm));
}

int ecluse_fortran_initialize_string(const char* config_xml, MPI_Fint comm) {
  return ecluse_initialize_string(config_xml, MPI_Comm_f2c(comm));
}

int ecluse_fortran_client_comm_get(MPI_Fint* comm) {
  MPI_Comm c = MPI_COMM_NULL;
  const int status = ecluse_client_comm_get(&c);
  if (status == ECLUSE_OK) *comm = MPI_Comm_c2f(c);
  return status;
}

/* An array section that is not contiguous (u(1:nx, 1:ny) of a ghosted array), as the Fortran
 * module passes it: its C descriptor. Its elements are copied in Fortran order (the first index
 * fastest) into a temporary, which is written as a contiguous array of the same shape would be.
 * The module passes contiguous arrays straight to ecluse_write_block: declaring its data
 * arguments `contiguous` instead would make gfortran 12 copy every assumed-shape array, even a
 * contiguous one. */
#ifdef ECLUSE_HAVE_ISO_FORTRAN_BINDING
#include <ISO_Fortran_binding.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ecluse_fortran_write_section(const char* variable, int32_t block, const CFI_cdesc_t* data);

/** Bytes of the section's elements in *bytes; 0 if that count overflows a size_t. */
static int section_bytes(const CFI_cdesc_t* data, size_t* bytes) {
  *bytes = data->elem_len;
  for (int i = 0; i < data->rank; ++i) {
    const size_t extent = (size_t)data->dim[i].extent;
    if (extent != 0 && *bytes > SIZE_MAX / extent) return 0;
    *bytes *= extent;
  }
  return 1;
}

/** `run` elements of `elem` bytes, `step` bytes apart, to `out` (contiguous). */
static inline void copy_run(char* out, const char* from, CFI_index_t run, CFI_index_t step,
                            size_t elem) {
  for (CFI_index_t k = 0; k < run; ++k) memcpy(out + (size_t)k * elem, from + k * step, elem);
}

/** copy_run with the element sizes of the layout types as constants: each element is then one
 * load and one store instead of a memcpy call. */
static void copy_strided(char* out, const char* from, CFI_index_t run, CFI_index_t step,
                         size_t elem) {
  switch (elem) {
    case 8:
      copy_run(out, from, run, step, 8);
      break;
    case 4:
      copy_run(out, from, run, step, 4);
      break;
    case 2:
      copy_run(out, from, run, step, 2);
      break;
    case 1:
      copy_run(out, from, run, step, 1);
      break;
    default:
      copy_run(out, from, run, step, elem);
      break;
  }
}

/** Copies the section into `out` (contiguous, Fortran order): the first dimension one run at a
 * time, the others counted like an odometer. */
static void pack_section(const CFI_cdesc_t* data, char* out) {
  CFI_index_t index[CFI_MAX_RANK] = {0};
  const size_t elem = data->elem_len;
  const CFI_index_t run = data->rank > 0 ? data->dim[0].extent : 1;
  const CFI_index_t step = data->rank > 0 ? data->dim[0].sm : (CFI_index_t)elem;
  for (;;) {
    const char* from = (const char*)data->base_addr;
    for (int i = 1; i < data->rank; ++i) from += index[i] * data->dim[i].sm;
    if (step == (CFI_index_t)elem) {
      memcpy(out, from, (size_t)run * elem);
    } else {
      copy_strided(out, from, run, step, elem);
    }
    out += (size_t)run * elem;
    int i = 1;
    for (; i < data->rank; ++i) {
      if (++index[i] < data->dim[i].extent) break;
      index[i] = 0;
    }
    if (i >= data->rank) return;
  }
}

int ecluse_fortran_write_section(const char* variable, int32_t block, const CFI_cdesc_t* data) {
  size_t bytes = 0;
  char* copy = section_bytes(data, &bytes) ? malloc(bytes ? bytes : 1) : NULL;
  if (!copy) {
    char message[512];
    snprintf(message, sizeof message,
             "write of variable '%.200s': no memory for the contiguous copy of the array "
             "section passed (%zu bytes); pass a contiguous array.",
             variable, bytes);
    return ecluse_set_error(ECLUSE_ALLOCATION_ERROR, message);
  }
  if (bytes) pack_section(data, copy);  // an empty section has no element to read
  const int status = ecluse_write_block(variable, block, copy);
  free(copy);
  return status;
}
#else
#include <stdio.h>

int ecluse_fortran_write_section(const char* variable, int32_t block, const void* data);

int ecluse_fortran_write_section(const char* variable, int32_t block, const void* data) {
  (void)block, (void)data;
  char message[512];
  snprintf(message, sizeof message,
           "write of variable '%.200s': the array passed is a section that is not contiguous, "
           "and this build's C compiler has no ISO_Fortran_binding.h to read it; pass a "
           "contiguous array (a copy of the section).",
           variable);
  return ecluse_set_error(ECLUSE_ARGUMENT_ERROR, message);
}
#endif
