// VORPAL-IO-like kernel: a 3-D block per rank (default 100x100x60) on a 3-D process grid, a
// field of three components (ex, ey, ez) written at its global place every step.
#include <ecluse/ecluse.h>

#include <array>
#include <string>

#include "Check.hpp"
#include "KernelData.hpp"
#include "Options.hpp"
#include "RunSummary.hpp"
#include "Workload.hpp"

namespace {

const char* const kUsage =
    "usage: ecluse_vorpal_io [--config vorpal-io-tp.xml] [--block 100x100x60 (per rank)]\n"
    "  [--steps 20]\n";

using apps::Decomposition;
using apps::Extent;
using apps::kVorpalComponents;

using Settings = apps::Settings<apps::VorpalRun>;

Settings parse_settings(int argc, char** argv) {
  return apps::parse_settings(argc, argv, "vorpal-io-tp.xml", {"block", "steps"}, apps::vorpal_run);
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
  for (const char* name : kVorpalComponents) {
    APP_CHECK(ecluse_set_position(name, d.offset.data()));
  }
}

void write_step(const apps::VorpalField& field) {
  for (std::size_t c = 0; c < 3; ++c) {
    APP_CHECK(ecluse_write(kVorpalComponents[c], field[c].data()));
  }
  APP_CHECK(ecluse_end_iteration());
}

void run_client(const Settings& s) {
  MPI_Comm comm;
  APP_CHECK(ecluse_client_comm_get(&comm));
  const Extent& block = s.run.block;
  const Decomposition d = apps::decompose(comm, block);
  describe(d, block);
  apps::VorpalField field = apps::allocate_vorpal(block);
  apps::RunSummary summary(comm, "vorpal-io", s.config);
  summary.add_field("process_grid", apps::dims_json(d));
  summary.run_loop(s.run.steps, [&](int step) {
    apps::fill_vorpal(field, d, block, step);
    summary.time_output(s.run.bytes(), [&] { write_step(field); });
  });
}

}  // namespace

int main(int argc, char** argv) {
  return apps::run_workload(argc, argv, kUsage, parse_settings, run_client);
}
