// The CM1-like proxy without Ecluse: the same physics (apps/proxy's sources) and the same
// output files, written straight with parallel HDF5 (one file per process or one shared file).
#include <cstdint>
#include <vector>

#include "Atmosphere.hpp"
#include "Baseline.hpp"
#include "ProcessGrid.hpp"
#include "ProxyRun.hpp"

namespace {

using proxy::Atmosphere;
using proxy::ProcessGrid;

const char* const kUsage =
    "usage: baseline_proxy [--approach hdf5-collective|hdf5-fpp] [--local 32x32x20 (per rank)]\n"
    "  [--iterations 20] [--output-every 5] [--variables temperature,pressure,u,v,w,qv]\n";

using Settings = baselines::Settings<proxy::RunOptions>;

proxy::RunOptions run_options(const apps::Options& options) {
  return proxy::run_options(options, "32x32x20");
}

Settings parse_settings(int argc, char** argv) {
  return baselines::parse_settings(argc, argv, proxy::kRunOptionNames, run_options);
}

std::vector<hsize_t> sizes(const std::array<std::int64_t, 3>& values) {
  return {static_cast<hsize_t>(values[0]), static_cast<hsize_t>(values[1]),
          static_cast<hsize_t>(values[2])};
}

// A field in memory keeps its ghost layer in x and y; only the interior is written.
std::vector<baselines::Block> blocks_of(const Atmosphere& atmosphere, const ProcessGrid& grid,
                                        const std::vector<int>& written) {
  const auto nx = static_cast<hsize_t>(grid.nx()), ny = static_cast<hsize_t>(grid.ny()),
             nz = static_cast<hsize_t>(grid.nz());
  std::vector<baselines::Block> blocks;
  for (int f : written) {
    blocks.push_back({Atmosphere::kNames[static_cast<std::size_t>(f)],
                      H5T_NATIVE_DOUBLE,
                      atmosphere.field(f),
                      {nx + 2, ny + 2, nz},
                      {1, 1, 0},
                      {nx, ny, nz},
                      sizes(grid.offset()),
                      sizes(grid.global())});
  }
  return blocks;
}

// Outputs go into proxy_It<it>: the Ecluse proxy's numbering, so that the files compare one
// to one.
void run(const Settings& s) {
  const ProcessGrid grid(MPI_COMM_WORLD, s.run.local_size());
  Atmosphere atmosphere(grid);
  const baselines::Hdf5Output output(MPI_COMM_WORLD, s.layout, "out/proxy", "proxy");
  apps::RunSummary summary = baselines::make_summary("proxy", s.layout);
  proxy::describe_run(summary, s.run, grid);
  const std::uint64_t bytes = proxy::output_bytes(grid, s.run);
  summary.run_loop(s.run.iterations, [&](int it) {
    atmosphere.step();
    if (!s.run.is_output(it)) return;
    summary.time_output(
        bytes, [&] { output.write_iteration(it, blocks_of(atmosphere, grid, s.run.written)); });
  });
}

}  // namespace

int main(int argc, char** argv) {
  return baselines::run_baseline(argc, argv, kUsage, parse_settings, run);
}
