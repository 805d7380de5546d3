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
 * module passes it: its C descriptor, turned into ecluse_write_block_strided's extents and byte
 * strides in C order (the descriptor's dimensions reversed: Fortran's first index varies
 * fastest). Ecluse's one copy of the write packs the elements straight into its buffer. The
 * module passes contiguous arrays to ecluse_write_block: declaring its data arguments
 * `contiguous` instead would make gfortran 12 copy every assumed-shape array, even a contiguous
 * one. */
#include <stdint.h>
#include <stdio.h>

#ifdef ECLUSE_HAVE_ISO_FORTRAN_BINDING
#include <ISO_Fortran_binding.h>

int ecluse_fortran_write_section(const char* variable, int32_t block, const CFI_cdesc_t* data);

int ecluse_fortran_write_section(const char* variable, int32_t block, const CFI_cdesc_t* data) {
  int64_t extents[CFI_MAX_RANK];
  int64_t strides[CFI_MAX_RANK];
  const int rank = data->rank;
  for (int i = 0; i < rank; ++i) {
    extents[rank - 1 - i] = (int64_t)data->dim[i].extent;
    strides[rank - 1 - i] = (int64_t)data->dim[i].sm;
  }
  return ecluse_write_block_strided(variable, block, data->base_addr, rank, extents, strides);
}

/* The bytes a contiguous array holds, or -1 for a scalar (or an array passed by its first
 * element) and an assumed-size array (x(*)), whose size only the caller knows. */
static int64_t array_bytes(const CFI_cdesc_t* data) {
  if (data->rank == 0 || data->dim[data->rank - 1].extent < 0) return -1;
  int64_t bytes = (int64_t)data->elem_len;
  for (int i = 0; i < data->rank; ++i) bytes *= (int64_t)data->dim[i].extent;
  return bytes;
}

int ecluse_fortran_write_contiguous(const char* variable, int32_t block, const CFI_cdesc_t* data);

/* A contiguous array, as the Damaris module passes it: Damaris reads the layout's bytes from it
 * unchecked, so an array that holds fewer (a section too small, real(4) data for a double
 * layout) would be read past its end: refused by ecluse_write_block_sized. A larger array gives
 * its first bytes, as in Damaris. */
int ecluse_fortran_write_contiguous(const char* variable, int32_t block, const CFI_cdesc_t* data) {
  const int64_t bytes = array_bytes(data);
  if (bytes < 0) return ecluse_write_block(variable, block, data->base_addr);
  return ecluse_write_block_sized(variable, block, data->base_addr, (uint64_t)bytes);
}
#else

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

int ecluse_fortran_write_contiguous(const char* variable, int32_t block, const void* data);

/* Without the header the array is not checked: its address is the descriptor's first member
 * (Fortran 2018, 18.5.3: base_addr, elem_len and version come first, in that order). */
int ecluse_fortran_write_contiguous(const char* variable, int32_t block, const void* data) {
  return ecluse_write_block(variable, block, *(void* const*)data);
}
#endif
