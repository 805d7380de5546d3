// CM1-like proxy simulation: six atmospheric fields on a 3-D grid split over a 2-D process
// grid, a real stencil with halo exchange, and periodic output of chosen fields through Ecluse.
#include <ecluse/ecluse.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "Atmosphere.hpp"
#include "Check.hpp"
#include "Options.hpp"
#include "ProcessGrid.hpp"
#include "RunSummary.hpp"
#include "Workload.hpp"

namespace {

using proxy::Atmosphere;
using proxy::ProcessGrid;

const char* const kUsage =
    "usage: ecluse_proxy [--config proxy-tp.xml] [--local NXxNYxNZ (per rank; default: the\n"
    "  config's NXL, NYL, NZ)] [--iterations 20] [--output-every 5]\n"
    "  [--variables temperature,pressure,u,v,w,qv] [--compute-only]\n";

struct Settings {
  std::string config;
  std::vector<int> local;  // empty: the configuration's NXL, NYL, NZ
  int iterations = 0;
  int output_every = 0;
  std::vector<int> written;  // field indices
  bool compute_only = false;
};

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

Settings parse_settings(int argc, char** argv) {
  const apps::Options options(
      argc, argv, {"config", "local", "iterations", "output-every", "variables"}, {"compute-only"});
  Settings s;
  s.config = options.text("config", "proxy-tp.xml");
  if (options.has("local")) s.local = options.extent("local", "", 3);
  s.iterations = options.positive("iterations", 20);
  s.output_every = options.positive("output-every", 5);
  s.written = field_indices(options.names("variables", "temperature,pressure,u,v,w,qv"));
  s.compute_only = options.has("compute-only");
  return s;
}

int get_int(const char* name) {
  int value = 0;
  APP_CHECK(ecluse_parameter_get(name, &value, sizeof value));
  return value;
}

void set_int(const char* name, int value) {
  APP_CHECK(ecluse_parameter_set(name, &value, sizeof value));
}

std::array<int, 3> local_size(const Settings& s) {
  if (!s.local.empty()) return {s.local[0], s.local[1], s.local[2]};
  return {get_int("NXL"), get_int("NYL"), get_int("NZ")};
}

// The layouts are written in terms of these parameters, so the configuration follows the run.
void describe_decomposition(const ProcessGrid& grid, const std::vector<int>& written) {
  set_int("NXL", grid.nx());
  set_int("NYL", grid.ny());
  set_int("NZ", grid.nz());
  set_int("PX", grid.px());
  set_int("PY", grid.py());
  const auto offset = grid.offset();
  for (int f : written) {
    APP_CHECK(ecluse_set_position(Atmosphere::kNames[static_cast<size_t>(f)], offset.data()));
  }
}

std::uint64_t interior_bytes(const ProcessGrid& grid) {
  return static_cast<std::uint64_t>(grid.nx()) * static_cast<std::uint64_t>(grid.ny()) *
         static_cast<std::uint64_t>(grid.nz()) * sizeof(double);
}

/** Hands the chosen fields over and ends the iteration; returns the client-visible time. */
double write_output(const Atmosphere& atmosphere, const std::vector<int>& written) {
  const double start = apps::now();
  for (int f : written) {
    APP_CHECK(ecluse_write(Atmosphere::kNames[static_cast<size_t>(f)], atmosphere.field(f)));
  }
  APP_CHECK(ecluse_end_iteration());
  return apps::now() - start;
}

std::string grid_json(const ProcessGrid& grid) {
  const auto g = grid.global();
  return "\"" + std::to_string(g[0]) + "x" + std::to_string(g[1]) + "x" + std::to_string(g[2]) +
         "\", \"process_grid\": \"" + std::to_string(grid.px()) + "x" + std::to_string(grid.py()) +
         "\"";
}

// Iteration `it` advances the fields to step it + 1; every output_every-th iteration writes
// them, and every iteration ends an Ecluse iteration so that file numbers are step numbers.
void iterate(const Settings& s, const ProcessGrid& grid, Atmosphere& atmosphere,
             apps::RunSummary& summary) {
  const std::uint64_t bytes = interior_bytes(grid) * s.written.size();
  for (int it = 0; it < s.iterations; ++it) {
    atmosphere.step();
    if (s.compute_only) continue;
    if ((it + 1) % s.output_every == 0) {
      summary.record_output(write_output(atmosphere, s.written), bytes);
    } else {
      APP_CHECK(ecluse_end_iteration());
    }
  }
}

void describe_run(apps::RunSummary& summary, const Settings& s, const ProcessGrid& grid) {
  summary.add_field("grid", grid_json(grid));
  summary.add_field("output_every", std::to_string(s.output_every));
  summary.add_field("variables", std::to_string(s.written.size()));
  summary.add_field("compute_only", s.compute_only ? "true" : "false");
}

void run_client(const Settings& s) {
  MPI_Comm comm;
  APP_CHECK(ecluse_client_comm_get(&comm));
  const ProcessGrid grid(comm, local_size(s));
  describe_decomposition(grid, s.written);
  Atmosphere atmosphere(grid);
  apps::RunSummary summary(comm, "proxy", s.config);
  const double start = apps::now();
  iterate(s, grid, atmosphere, summary);
  describe_run(summary, s, grid);
  summary.print(s.iterations, apps::now() - start);
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  return apps::run_workload(
      argc, argv, kUsage,
      [&] {
        settings = parse_settings(argc, argv);
        return settings.config;
      },
      [&] { run_client(settings); });
}
