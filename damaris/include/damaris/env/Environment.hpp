// A part of Damaris's damaris::Environment on Ecluse (libdamaris, header only), for programs
// that include it (OPM Flow does) or name the run from it. Damaris's server-side members (the
// variables, blocks and communicators of a running server) are not here: plugins built on
// Damaris's internal classes must be rewritten as Ecluse plugins (docs/damaris.md).
#ifndef ECLUSE_DAMARIS_ENV_ENVIRONMENT_HPP
#define ECLUSE_DAMARIS_ENV_ENVIRONMENT_HPP

#include <mpi.h>

#include <random>
#include <string>

#include "Damaris.h"

namespace damaris {

class Environment {
 public:
  /** A random number drawn by rank 0 of comm and known by every rank (collective), as text:
   * a name that two runs started at once do not share (Damaris 1.9.3). */
  static std::string GetMagicNumber(MPI_Comm comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    unsigned int value = 0;
    if (rank == 0) {
      std::random_device device;
      value = device();
    }
    MPI_Bcast(&value, 1, MPI_UNSIGNED, 0, comm);
    return std::to_string(value);
  }

  /** The clients' communicator on a client, MPI_COMM_NULL on a server or before initialize. */
  static MPI_Comm GetEntityComm() {
    MPI_Comm comm = MPI_COMM_NULL;
    if (damaris_client_comm_get(&comm) != DAMARIS_OK) return MPI_COMM_NULL;
    return comm;
  }
};

}  // namespace damaris

#endif  // ECLUSE_DAMARIS_ENV_ENVIRONMENT_HPP
