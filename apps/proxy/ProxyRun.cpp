// What the proxy and its HDF5 baseline share, so that both read the same options and print the
// same summary fields: their runs compare one to one.
#include "ProxyRun.hpp"

#include <algorithm>

#include "Atmosphere.hpp"

namespace proxy {

namespace {

std::vector<int> field_indices(const std::vector<std::string>& names) {
  std::vector<int> indices;
  for (const std::string& name : names) {
    const int f = Atmosphere::field_index(name);
    if (f < 0) throw apps::UsageError("--variables: unknown field '" + name + "'");
    // A second write of a variable in one iteration would replace the first: say so instead.
    if (std::find(indices.begin(), indices.end(), f) != indices.end()) {
      throw apps::UsageError("--variables: field '" + name + "' is named twice");
    }
    indices.push_back(f);
  }
  return indices;
}

std::string grid_json(const ProcessGrid& grid) {
  const auto g = grid.global();
  return "\"" + std::to_string(g[0]) + "x" + std::to_string(g[1]) + "x" + std::to_string(g[2]) +
         "\", \"process_grid\": \"" + std::to_string(grid.px()) + "x" + std::to_string(grid.py()) +
         "\"";
}

}  // namespace

RunOptions run_options(const apps::Options& options, const std::string& local_fallback) {
  RunOptions run;
  if (options.has("local") || !local_fallback.empty()) {
    run.local = options.extent("local", local_fallback, 3);
  }
  run.iterations = options.positive("iterations", 20);
  run.output_every = options.positive("output-every", 5);
  run.written = field_indices(options.names("variables", "temperature,pressure,u,v,w,qv"));
  return run;
}

std::uint64_t output_bytes(const ProcessGrid& grid, const RunOptions& run) {
  return static_cast<std::uint64_t>(grid.nx()) * static_cast<std::uint64_t>(grid.ny()) *
         static_cast<std::uint64_t>(grid.nz()) * sizeof(double) * run.written.size();
}

void describe_run(apps::RunSummary& summary, const RunOptions& run, const ProcessGrid& grid) {
  summary.add_field("grid", grid_json(grid));
  summary.add_field("output_every", std::to_string(run.output_every));
  summary.add_field("variables", std::to_string(run.written.size()));
}

}  // namespace proxy
