// The VPIC-IO-like kernel without Ecluse: the same 8 particle arrays (1-D, N per rank) written
// straight with parallel HDF5 every step, one file per process or one shared file.
#include <cstdint>
#include <string>
#include <vector>

#include "Baseline.hpp"
#include "KernelData.hpp"

namespace {

const char* const kUsage =
    "usage: baseline_vpic_io [--approach hdf5-collective|hdf5-fpp] [--particles 1048576 (per\n"
    "  rank)] [--steps 5]\n";

using apps::kVpicFloats;

using Settings = baselines::Settings<apps::VpicRun>;

Settings parse_settings(int argc, char** argv) {
  return baselines::parse_settings(argc, argv, {"particles", "steps"}, apps::vpic_run);
}

std::vector<baselines::Block> blocks_of(const apps::Particles& p, std::int64_t first, int ranks) {
  const auto n = static_cast<hsize_t>(p.id1.size());
  const std::vector<hsize_t> count{n}, offset{static_cast<hsize_t>(first)},
      global{n * static_cast<hsize_t>(ranks)};
  std::vector<baselines::Block> blocks;
  for (std::size_t v = 0; v < kVpicFloats.size(); ++v) {
    blocks.push_back(
        {kVpicFloats[v], H5T_NATIVE_FLOAT, p.values[v].data(), count, {0}, count, offset, global});
  }
  blocks.push_back({"id1", H5T_NATIVE_INT32, p.id1.data(), count, {0}, count, offset, global});
  blocks.push_back({"id2", H5T_NATIVE_INT32, p.id2.data(), count, {0}, count, offset, global});
  return blocks;
}

void run(const Settings& s) {
  int rank = 0, ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const std::int64_t first = std::int64_t{rank} * s.run.particles;
  apps::Particles particles = apps::allocate_particles(s.run.particles);
  const baselines::Hdf5Output output(MPI_COMM_WORLD, s.layout, "out/vpic", "vpic");
  apps::RunSummary summary = baselines::make_summary("vpic-io", s.layout);
  summary.add_field("particles_per_rank", std::to_string(s.run.particles));
  summary.run_loop(s.run.steps, [&](int step) {
    apps::fill_vpic(particles, first, step);
    summary.time_output(s.run.bytes(),
                        [&] { output.write_iteration(step, blocks_of(particles, first, ranks)); });
  });
}

}  // namespace

int main(int argc, char** argv) {
  return baselines::run_baseline(argc, argv, kUsage, parse_settings, run);
}
