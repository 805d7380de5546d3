// The life cycle every baseline shares. A usage error ends every rank the same way (each
// parsed the same arguments), so no rank waits for another.
#include "Baseline.hpp"

#include <mpi.h>

namespace baselines {

FileLayout layout_option(const apps::Options& options) {
  const std::string name = options.text("approach", "hdf5-collective");
  if (name == "hdf5-collective") return FileLayout::Collective;
  if (name == "hdf5-fpp") return FileLayout::FilePerProcess;
  throw apps::UsageError("--approach expects hdf5-collective or hdf5-fpp, got '" + name + "'");
}

apps::RunSummary make_summary(const std::string& app, FileLayout layout) {
  apps::RunSummary summary(MPI_COMM_WORLD, app, approach_name(layout));
  summary.add_field("approach", std::string("\"") + approach_name(layout) + "\"");
  return summary;
}

int run_baseline(int argc, char** argv, const char* usage, const std::function<void()>& parse,
                 const std::function<void()>& run) {
  MPI_Init(&argc, &argv);
  if (!apps::parse_or_explain(argv[0], usage, parse)) {
    MPI_Finalize();
    return 2;
  }
  run();
  MPI_Finalize();
  return 0;
}

}  // namespace baselines
