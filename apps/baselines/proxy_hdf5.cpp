// The CM1-like proxy without Ecluse: the same physics (apps/proxy's sources) and the same
// output files, written straight with parallel HDF5 (one file per process or one shared file).
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "Atmosphere.hpp"
#include "Baseline.hpp"
#include "ProcessGrid.hpp"

namespace {

using proxy::Atmosphere;
using proxy::ProcessGrid;

const char* const kUsage =
    "usage: baseline_proxy [--approach hdf5-collective|hdf5-fpp] [--local 32x32x20 (per rank)]\n"
    "  [--iterations 20] [--output-every 5] [--variables temperature,pressure,u,v,w,qv]\n";

struct Settings {
  baselines::FileLayout layout = baselines::FileLayout::Collective;
  std::array<int, 3> local{};
  int iterations = 0;
  int output_every = 0;
  std::vector<int> written;  // field indices
};

std::vector<int> field_indices(const std::vector<std::string>& names) {
  std::vector<int> indices;
  for (const std::string& name : names) {
    const int f = Atmosphere::field_index(name);
    if (f < 0) throw apps::UsageError("--variables: unknown field '" + name + "'");
    if (std::find(indices.begin(), indices.end(), f) != indices.end()) {
      throw apps::UsageError("--variables: field '" + name + "' is named twice");
    }
    indices.push_back(f);
  }
  return indices;
}

Settings parse_settings(int argc, char** argv) {
  const apps::Options options(argc, argv,
                              {"approach", "local", "iterations", "output-every", "variables"}, {});
  Settings s;
  s.layout = baselines::layout_option(options);
  const std::vector<int> local = options.extent("local", "32x32x20", 3);
  s.local = {local[0], local[1], local[2]};
  s.iterations = options.positive("iterations", 20);
  s.output_every = options.positive("output-every", 5);
  s.written = field_indices(options.names("variables", "temperature,pressure,u,v,w,qv"));
  return s;
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

std::uint64_t interior_bytes(const ProcessGrid& grid) {
  return static_cast<std::uint64_t>(grid.nx()) * static_cast<std::uint64_t>(grid.ny()) *
         static_cast<std::uint64_t>(grid.nz()) * sizeof(double);
}

std::string grid_json(const ProcessGrid& grid) {
  const auto g = grid.global();
  return "\"" + std::to_string(g[0]) + "x" + std::to_string(g[1]) + "x" + std::to_string(g[2]) +
         "\", \"process_grid\": \"" + std::to_string(grid.px()) + "x" + std::to_string(grid.py()) +
         "\"";
}

// Iteration `it` advances the fields to step it + 1 and writes them when (it + 1) % K == 0,
// into proxy_It<it>: the Ecluse proxy's numbering, so that the files compare one to one.
void run(const Settings& s) {
  const ProcessGrid grid(MPI_COMM_WORLD, s.local);
  Atmosphere atmosphere(grid);
  const baselines::Hdf5Output output(MPI_COMM_WORLD, s.layout, "out/proxy", "proxy");
  apps::RunSummary summary = baselines::make_summary("proxy", s.layout);
  const std::uint64_t bytes = interior_bytes(grid) * s.written.size();
  const double start = apps::now();
  for (int it = 0; it < s.iterations; ++it) {
    atmosphere.step();
    if ((it + 1) % s.output_every != 0) continue;
    const double write_start = apps::now();
    output.write_iteration(it, blocks_of(atmosphere, grid, s.written));
    summary.record_output(apps::now() - write_start, bytes);
  }
  const double wall = apps::now() - start;
  summary.add_field("grid", grid_json(grid));
  summary.add_field("output_every", std::to_string(s.output_every));
  summary.add_field("variables", std::to_string(s.written.size()));
  summary.print(s.iterations, wall);
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  return baselines::run_baseline(
      argc, argv, kUsage, [&] { settings = parse_settings(argc, argv); }, [&] { run(settings); });
}
