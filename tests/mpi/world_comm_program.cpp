// A simulation that calls MPI_Barrier(MPI_COMM_WORLD) instead of a collective on the clients'
// communicator (ecluse_client_comm_get) under dedicated cores or nodes: the servers never join
// it, so the run must end after ECLUSE_TIMEOUT with a message naming the right communicator
// (tests/python/test_fault_injection.py).
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "ecluse/ecluse.h"

namespace {

// DC: 2 virtual nodes of 2 ranks, one dedicated core each; DN: 3 nodes of 1 rank, 1 dedicated.
std::string config(const std::string& approach) {
  const std::string architecture =
      approach == "dc" ? R"(<dedicated cores="1"/><virtual-nodes ranks-per-node="2"/>)"
                       : R"(<dedicated nodes="1"/><virtual-nodes ranks-per-node="1"/>)";
  return R"(<simulation name="world"><architecture>)" + architecture +
         R"(<buffer size="1MiB"/></architecture><data>
    <layout name="l" type="double" dimensions="100"/><variable name="v" layout="l"/></data>
    <storage><store name="s" type="null"/></storage></simulation>)";
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::string approach = argc > 1 ? argv[1] : "dc";
  if (ecluse_initialize_string(config(approach).c_str(), MPI_COMM_WORLD) != ECLUSE_OK) {
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int is_client = 0;
  ecluse_start(&is_client);
  if (is_client) {
    std::vector<double> data(100, 1.0);
    ecluse_write("v", data.data());
    ecluse_end_iteration();
    // "return": with libecluse_mpicheck, the mistake is an error the program sees.
    if (argc > 2 && std::string(argv[2]) == "return") {
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    }
    // "clients": the right communicator, which the check lets through.
    MPI_Comm clients = MPI_COMM_NULL;
    ecluse_client_comm_get(&clients);
    const bool right = argc > 2 && std::string(argv[2]) == "clients";
    // The mistake: the servers are in MPI_COMM_WORLD too ("split": a communicator made from
    // it, the usual first collective of a code that builds its own).
    MPI_Comm split = MPI_COMM_NULL;
    const bool splitting = argc > 2 && std::string(argv[2]) == "split";
    const int status = splitting ? MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &split)
                                 : MPI_Barrier(right ? clients : MPI_COMM_WORLD);
    int error_class = MPI_SUCCESS;
    MPI_Error_class(status, &error_class);
    if (error_class == MPI_ERR_COMM) std::fprintf(stderr, "MPI_Barrier returned MPI_ERR_COMM\n");
    ecluse_stop();
  }
  ecluse_finalize();
  MPI_Finalize();
  return 0;
}
