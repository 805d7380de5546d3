// VPIC-IO-like kernel: N particles per rank, each with 8 variables (x, y, z, px, py, pz as
// float, id1, id2 as int like VPIC-IO) written as 1-D arrays with a global layout each step.
#include <ecluse/ecluse.h>

#include <cstdint>
#include <string>

#include "Check.hpp"
#include "KernelData.hpp"
#include "Options.hpp"
#include "RunSummary.hpp"
#include "Workload.hpp"

namespace {

const char* const kUsage =
    "usage: ecluse_vpic_io [--config vpic-io-tp.xml] [--particles 1048576 (per rank)]\n"
    "  [--steps 5]\n";

using apps::kVpicFloats;
using apps::Particles;

using Settings = apps::Settings<apps::VpicRun>;

Settings parse_settings(int argc, char** argv) {
  return apps::parse_settings(argc, argv, "vpic-io-tp.xml", {"particles", "steps"}, apps::vpic_run);
}

void describe(int particles, int ranks, std::int64_t first) {
  APP_CHECK(ecluse_parameter_set("N", &particles, sizeof particles));
  APP_CHECK(ecluse_parameter_set("RANKS", &ranks, sizeof ranks));
  for (const char* name : kVpicFloats) APP_CHECK(ecluse_set_position(name, &first));
  APP_CHECK(ecluse_set_position("id1", &first));
  APP_CHECK(ecluse_set_position("id2", &first));
}

void write_step(const Particles& p) {
  for (std::size_t v = 0; v < kVpicFloats.size(); ++v) {
    APP_CHECK(ecluse_write(kVpicFloats[v], p.values[v].data()));
  }
  APP_CHECK(ecluse_write("id1", p.id1.data()));
  APP_CHECK(ecluse_write("id2", p.id2.data()));
  APP_CHECK(ecluse_end_iteration());
}

void run_client(const Settings& s) {
  MPI_Comm comm;
  APP_CHECK(ecluse_client_comm_get(&comm));
  int rank = 0, ranks = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const std::int64_t first = std::int64_t{rank} * s.run.particles;
  describe(s.run.particles, ranks, first);
  Particles particles = apps::allocate_particles(s.run.particles);
  apps::RunSummary summary(comm, "vpic-io", s.config);
  summary.add_field("particles_per_rank", std::to_string(s.run.particles));
  summary.run_loop(s.run.steps, [&](int step) {
    apps::fill_vpic(particles, first, step);
    summary.time_output(s.run.bytes(), [&] { write_step(particles); });
  });
}

}  // namespace

int main(int argc, char** argv) {
  return apps::run_workload(argc, argv, kUsage, parse_settings, run_client);
}
