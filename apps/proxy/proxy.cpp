// CM1-like proxy simulation: six atmospheric fields on a 3-D grid split over a 2-D process
// grid, a real stencil with halo exchange, and periodic output of chosen fields through Ecluse.
#include <ecluse/ecluse.h>

#include <array>
#include <set>
#include <string>
#include <vector>

#include "Atmosphere.hpp"
#include "Check.hpp"
#include "Options.hpp"
#include "ProcessGrid.hpp"
#include "ProxyRun.hpp"
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
  proxy::RunOptions run;  // run.local empty: the configuration's NXL, NYL, NZ
  bool compute_only = false;
};

Settings parse_settings(int argc, char** argv) {
  std::set<std::string> names = proxy::kRunOptionNames;
  names.insert("config");
  const apps::Options options(argc, argv, names, {"compute-only"});
  return {options.text("config", "proxy-tp.xml"), proxy::run_options(options, ""),
          options.has("compute-only")};
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
  if (!s.run.local.empty()) return s.run.local_size();
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

/** Hands the chosen fields over and ends the iteration. */
void write_output(const Atmosphere& atmosphere, const std::vector<int>& written) {
  for (int f : written) {
    APP_CHECK(ecluse_write(Atmosphere::kNames[static_cast<size_t>(f)], atmosphere.field(f)));
  }
  APP_CHECK(ecluse_end_iteration());
}

// Every iteration ends an Ecluse iteration, so that file numbers are step numbers.
void run_client(const Settings& s) {
  MPI_Comm comm;
  APP_CHECK(ecluse_client_comm_get(&comm));
  const ProcessGrid grid(comm, local_size(s));
  describe_decomposition(grid, s.run.written);
  Atmosphere atmosphere(grid);
  apps::RunSummary summary(comm, "proxy", s.config);
  proxy::describe_run(summary, s.run, grid);
  summary.add_field("compute_only", s.compute_only ? "true" : "false");
  const std::uint64_t bytes = proxy::output_bytes(grid, s.run);
  summary.run_loop(s.run.iterations, [&](int it) {
    atmosphere.step();
    if (s.compute_only) return;
    if (s.run.is_output(it)) {
      summary.time_output(bytes, [&] { write_output(atmosphere, s.run.written); });
    } else {
      APP_CHECK(ecluse_end_iteration());
    }
  });
}

}  // namespace

int main(int argc, char** argv) {
  return apps::run_workload(argc, argv, kUsage, parse_settings, run_client);
}
