// The life cycle every workload shares. A usage error ends every rank the same way (each
// parsed the same arguments) before Ecluse starts, so no rank waits for another.
#include "Workload.hpp"

#include <ecluse/ecluse.h>

#include "Check.hpp"
#include "Options.hpp"

namespace apps {

int run_workload(int argc, char** argv, const char* usage,
                 const std::function<std::string()>& parse, const std::function<void()>& client) {
  MPI_Init(&argc, &argv);
  std::string config;
  if (!parse_or_explain(argv[0], usage, [&] { config = parse(); })) {
    MPI_Finalize();
    return 2;
  }
  APP_CHECK(ecluse_initialize(config.c_str(), MPI_COMM_WORLD));
  int is_client = 0;
  APP_CHECK(ecluse_start(&is_client));
  if (is_client) {
    client();
    APP_CHECK(ecluse_stop());
  }
  APP_CHECK(ecluse_finalize());
  MPI_Finalize();
  return 0;
}

}  // namespace apps
