// The same ramp through the C++ API of an installed Ecluse (ecluse::Session, exceptions).
#include <ecluse/Session.hpp>

#include <array>
#include <cstdio>

namespace {
const char* const config =
    "<simulation name='consumer_cxx' xmlns='urn:ecluse:config:1'>"
    "<architecture><domains count='1'/><dedicated cores='0' nodes='0'/></architecture>"
    "<data><parameter name='N' type='int' value='4'/>"
    "<layout name='row' type='int' dimensions='N' global='N*2'/>"
    "<variable name='ramp' layout='row'/></data>"
    "<storage><store name='h5' type='HDF5'><option key='FileMode'>Collective</option>"
    "<option key='FilesPath'>out</option></store></storage></simulation>";
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  try {
    ecluse::Session session = ecluse::Session::from_string(config, MPI_COMM_WORLD);
    session.start();
    const std::array<std::int64_t, 1> position{4 * rank};
    session.set_position("ramp", position);
    std::array<int, 4> ramp{};
    for (int i = 0; i < 4; i++) ramp[i] = 100 * rank + i;
    session.write("ramp", ramp.data());
    session.end_iteration();
    session.stop();
    session.finalize();
  } catch (const ecluse::Error& e) {
    std::fprintf(stderr, "consumer_cxx: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) std::printf("consumer_cxx: ok\n");
  MPI_Finalize();
  return 0;
}
