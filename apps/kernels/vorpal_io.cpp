// VORPAL-IO-like kernel: a 3-D block per rank (default 100x100x60) on a 3-D process grid, a
// field of three components (ex, ey, ez) written at its global place every step.
#include <ecluse/ecluse.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "Check.hpp"
#include "KernelData.hpp"
#include "Options.hpp"
#include "RunSummary.hpp"
#include "Workload.hpp"

namespace {

const char* const kUsage =
    "usage: ecluse_vorpal_io [--config vorpal-io-tp.xml] [--block 100x100x60 (per rank)]\n"
    "  [--steps 20]\n";

constexpr std::array<const char*, 3> kComponents = {"ex", "ey", "ez"};
using apps::Decomposition;
using apps::Extent;

struct Settings {
  std::string config;
  Extent block{};
  int steps = 0;
};

Settings parse_settings(int argc, char** argv) {
  const apps::Options options(argc, argv, {"config", "block", "steps"}, {});
  const std::vector<int> b = options.extent("block", "100x100x60", 3);
  return {options.text("config", "vorpal-io-tp.xml"),
          {b[0], b[1], b[2]},
          options.positive("steps", 20)};
}

void set_int(const char* name, int value) {
  APP_CHECK(ecluse_parameter_set(name, &value, sizeof value));
}

void describe(const Decomposition& d, const Extent& block) {
  const std::array<const char*, 3> sizes = {"BX", "BY", "BZ"}, dims = {"PX", "PY", "PZ"};
  for (std::size_t a = 0; a < 3; ++a) {
    set_int(sizes[a], block[a]);
    set_int(dims[a], d.dims[a]);
  }
  for (const char* name : kComponents) APP_CHECK(ecluse_set_position(name, d.offset.data()));
}

std::string grid_json(const Decomposition& d) {
  return "\"" + std::to_string(d.dims[0]) + "x" + std::to_string(d.dims[1]) + "x" +
         std::to_string(d.dims[2]) + "\"";
}

double write_step(const std::array<std::vector<double>, 3>& data) {
  const double start = apps::now();
  for (std::size_t c = 0; c < 3; ++c) APP_CHECK(ecluse_write(kComponents[c], data[c].data()));
  APP_CHECK(ecluse_end_iteration());
  return apps::now() - start;
}

void run_client(const Settings& s) {
  MPI_Comm comm;
  APP_CHECK(ecluse_client_comm_get(&comm));
  const Decomposition d = apps::decompose(comm, s.block);
  describe(d, s.block);
  const std::size_t cells = static_cast<std::size_t>(s.block[0]) * s.block[1] * s.block[2];
  std::array<std::vector<double>, 3> data;
  for (auto& component : data) component.resize(cells);
  apps::RunSummary summary(comm, "vorpal-io", s.config);
  const double start = apps::now();
  for (int step = 0; step < s.steps; ++step) {
    for (int c = 0; c < 3; ++c)
      apps::fill_vorpal(data[static_cast<size_t>(c)], c, d, s.block, step);
    summary.record_output(write_step(data), 3 * cells * sizeof(double));
  }
  summary.add_field("process_grid", grid_json(d));
  summary.print(s.steps, apps::now() - start);
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
