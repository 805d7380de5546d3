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
