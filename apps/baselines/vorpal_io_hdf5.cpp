// The VORPAL-IO-like kernel without Ecluse: the same 3-D blocks (ex, ey, ez) written straight
// with parallel HDF5 every step, one file per process or one shared file.
#include <cstddef>
#include <vector>

#include "Baseline.hpp"
#include "KernelData.hpp"

namespace {

const char* const kUsage =
    "usage: baseline_vorpal_io [--approach hdf5-collective|hdf5-fpp] [--block 100x100x60 (per\n"
    "  rank)] [--steps 20]\n";

using Settings = baselines::Settings<apps::VorpalRun>;

Settings parse_settings(int argc, char** argv) {
  return baselines::parse_settings(argc, argv, {"block", "steps"}, apps::vorpal_run);
}

std::vector<baselines::Block> blocks_of(const apps::VorpalField& field,
                                        const apps::Decomposition& d, const apps::Extent& b) {
  std::vector<hsize_t> count, offset, global;
  for (std::size_t a = 0; a < 3; ++a) {
    count.push_back(static_cast<hsize_t>(b[a]));
    offset.push_back(static_cast<hsize_t>(d.offset[a]));
    global.push_back(static_cast<hsize_t>(b[a]) * static_cast<hsize_t>(d.dims[a]));
  }
  std::vector<baselines::Block> blocks;
  for (std::size_t c = 0; c < 3; ++c) {
    blocks.push_back({apps::kVorpalComponents[c],
                      H5T_NATIVE_DOUBLE,
                      field[c].data(),
                      count,
                      {0, 0, 0},
                      count,
                      offset,
                      global});
  }
  return blocks;
}

void run(const Settings& s) {
  const apps::Extent& block = s.run.block;
  const apps::Decomposition d = apps::decompose(MPI_COMM_WORLD, block);
  apps::VorpalField field = apps::allocate_vorpal(block);
  const baselines::Hdf5Output output(MPI_COMM_WORLD, s.layout, "out/vorpal", "vorpal");
  apps::RunSummary summary = baselines::make_summary("vorpal-io", s.layout);
  summary.add_field("process_grid", apps::dims_json(d));
  summary.run_loop(s.run.steps, [&](int step) {
    apps::fill_vorpal(field, d, block, step);
    summary.time_output(s.run.bytes(),
                        [&] { output.write_iteration(step, blocks_of(field, d, block)); });
  });
}

}  // namespace

int main(int argc, char** argv) {
  return baselines::run_baseline(argc, argv, kUsage, parse_settings, run);
}
