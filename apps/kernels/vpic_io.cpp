// VPIC-IO-like kernel: N particles per rank, each with 8 variables (x, y, z, px, py, pz as
// float, id1, id2 as int like VPIC-IO) written as 1-D arrays with a global layout each step.
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
    "usage: ecluse_vpic_io [--config vpic-io-tp.xml] [--particles 1048576 (per rank)]\n"
    "  [--steps 5]\n";

constexpr std::array<const char*, 6> kFloats = {"x", "y", "z", "px", "py", "pz"};

struct Settings {
  std::string config;
  int particles = 0;
  int steps = 0;
};

using apps::Particles;

Settings parse_settings(int argc, char** argv) {
  const apps::Options options(argc, argv, {"config", "particles", "steps"}, {});
  return {options.text("config", "vpic-io-tp.xml"), options.positive("particles", 1 << 20),
          options.positive("steps", 5)};
}

void describe(int particles, int ranks, std::int64_t first) {
  APP_CHECK(ecluse_parameter_set("N", &particles, sizeof particles));
  APP_CHECK(ecluse_parameter_set("RANKS", &ranks, sizeof ranks));
  for (const char* name : kFloats) APP_CHECK(ecluse_set_position(name, &first));
  APP_CHECK(ecluse_set_position("id1", &first));
  APP_CHECK(ecluse_set_position("id2", &first));
}

double write_step(const Particles& p) {
  const double start = apps::now();
  for (std::size_t v = 0; v < kFloats.size(); ++v) {
    APP_CHECK(ecluse_write(kFloats[v], p.values[v].data()));
  }
  APP_CHECK(ecluse_write("id1", p.id1.data()));
  APP_CHECK(ecluse_write("id2", p.id2.data()));
  APP_CHECK(ecluse_end_iteration());
  return apps::now() - start;
}

void run_client(const Settings& s) {
  MPI_Comm comm;
  APP_CHECK(ecluse_client_comm_get(&comm));
  int rank = 0, ranks = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const std::int64_t first = std::int64_t{rank} * s.particles;
  describe(s.particles, ranks, first);
  Particles particles = apps::allocate_particles(s.particles);
  apps::RunSummary summary(comm, "vpic-io", s.config);
  const double start = apps::now();
  for (int step = 0; step < s.steps; ++step) {
    apps::fill_vpic(particles, first, step);
    summary.record_output(write_step(particles), std::uint64_t{8} * 4 * s.particles);
  }
  summary.add_field("particles_per_rank", std::to_string(s.particles));
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
