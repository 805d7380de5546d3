// The VORPAL-IO-like kernel without Ecluse: the same 3-D blocks (ex, ey, ez) written straight
// with parallel HDF5 every step, one file per process or one shared file.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "Baseline.hpp"
#include "KernelData.hpp"

namespace {

const char* const kUsage =
    "usage: baseline_vorpal_io [--approach hdf5-collective|hdf5-fpp] [--block 100x100x60 (per\n"
    "  rank)] [--steps 20]\n";

constexpr std::array<const char*, 3> kComponents = {"ex", "ey", "ez"};

struct Settings {
  baselines::FileLayout layout = baselines::FileLayout::Collective;
  apps::Extent block{};
  int steps = 0;
};

Settings parse_settings(int argc, char** argv) {
  const apps::Options options(argc, argv, {"approach", "block", "steps"}, {});
  const std::vector<int> b = options.extent("block", "100x100x60", 3);
  return {baselines::layout_option(options), {b[0], b[1], b[2]}, options.positive("steps", 20)};
}

std::vector<baselines::Block> blocks_of(const std::array<std::vector<double>, 3>& data,
                                        const apps::Decomposition& d, const apps::Extent& b) {
  std::vector<hsize_t> count, offset, global;
  for (std::size_t a = 0; a < 3; ++a) {
    count.push_back(static_cast<hsize_t>(b[a]));
    offset.push_back(static_cast<hsize_t>(d.offset[a]));
    global.push_back(static_cast<hsize_t>(b[a]) * static_cast<hsize_t>(d.dims[a]));
  }
  std::vector<baselines::Block> blocks;
  for (std::size_t c = 0; c < 3; ++c) {
    blocks.push_back({kComponents[c],
                      H5T_NATIVE_DOUBLE,
                      data[c].data(),
                      count,
                      {0, 0, 0},
                      count,
                      offset,
                      global});
  }
  return blocks;
}

std::string grid_json(const apps::Decomposition& d) {
  return "\"" + std::to_string(d.dims[0]) + "x" + std::to_string(d.dims[1]) + "x" +
         std::to_string(d.dims[2]) + "\"";
}

void run(const Settings& s) {
  const apps::Decomposition d = apps::decompose(MPI_COMM_WORLD, s.block);
  const std::size_t cells = static_cast<std::size_t>(s.block[0]) * s.block[1] * s.block[2];
  std::array<std::vector<double>, 3> data;
  for (auto& component : data) component.resize(cells);
  const baselines::Hdf5Output output(MPI_COMM_WORLD, s.layout, "out/vorpal", "vorpal");
  apps::RunSummary summary = baselines::make_summary("vorpal-io", s.layout);
  const double start = apps::now();
  for (int step = 0; step < s.steps; ++step) {
    for (int c = 0; c < 3; ++c)
      apps::fill_vorpal(data[static_cast<std::size_t>(c)], c, d, s.block, step);
    const double write_start = apps::now();
    output.write_iteration(step, blocks_of(data, d, s.block));
    summary.record_output(apps::now() - write_start, 3 * cells * sizeof(double));
  }
  const double wall = apps::now() - start;
  summary.add_field("process_grid", grid_json(d));
  summary.print(s.steps, wall);
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  return baselines::run_baseline(
      argc, argv, kUsage, [&] { settings = parse_settings(argc, argv); }, [&] { run(settings); });
}
