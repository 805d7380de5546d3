/* A user's program built against an installed Ecluse: each rank writes its rank number and a
 * ramp into one shared HDF5 file per iteration (time partitioning, collective). With an
 * argument, the configuration is that file instead (the same variable). */
#include <ecluse/ecluse.h>
#include <stdio.h>

static const char* config =
    "<simulation name='consumer' xmlns='urn:ecluse:config:1'>"
    "<architecture><domains count='1'/><dedicated cores='0' nodes='0'/></architecture>"
    "<data><parameter name='N' type='int' value='4'/>"
    "<layout name='row' type='int' dimensions='N' global='N*2'/>"
    "<variable name='ramp' layout='row'/></data>"
    "<storage><store name='h5' type='HDF5'><option key='FileMode'>Collective</option>"
    "<option key='FilesPath'>out</option></store></storage></simulation>";

static int check(int err, const char* what) {
  if (err != ECLUSE_OK) {
    fprintf(stderr, "%s: %s: %s\n", what, ecluse_status_name(err), ecluse_error_message());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return err;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, is_client = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  check(argc > 1 ? ecluse_initialize(argv[1], MPI_COMM_WORLD)
                 : ecluse_initialize_string(config, MPI_COMM_WORLD),
        "initialize");
  check(ecluse_start(&is_client), "start");
  const int64_t position[1] = {4 * rank};
  check(ecluse_set_position("ramp", position), "set_position");
  int ramp[4];
  for (int i = 0; i < 4; i++) ramp[i] = 100 * rank + i;
  check(ecluse_write("ramp", ramp), "write");
  check(ecluse_end_iteration(), "end_iteration");
  check(ecluse_stop(), "stop");
  check(ecluse_finalize(), "finalize");
  if (rank == 0) printf("consumer_c: ok\n");
  MPI_Finalize();
  return 0;
}
