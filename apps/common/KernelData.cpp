// The kernels' values: exact integers turned into float or double once, a function of the
// global index and the step only.
#include "KernelData.hpp"

#include <cstddef>
#include <string>

namespace apps {

namespace {

double vorpal_value(int component, std::int64_t gi, std::int64_t gj, std::int64_t gk, int step) {
  const std::int64_t cell = (gi * 31 + gj * 17 + gk * 7) % 99991;
  return step * 1e6 + component * 1e5 + static_cast<double>(cell);
}

float vpic_coordinate(int v, std::int64_t g, int step) {
  const std::int64_t cell = (g * (2 * v + 1) + 7 * std::int64_t{step}) % 10007;
  return static_cast<float>(static_cast<double>(cell) * 0.01);
}

void fill_component(std::vector<double>& data, int component, const Decomposition& d,
                    const Extent& block, int step) {
  std::size_t n = 0;
  for (std::int64_t i = d.offset[0]; i < d.offset[0] + block[0]; ++i) {
    for (std::int64_t j = d.offset[1]; j < d.offset[1] + block[1]; ++j) {
      for (std::int64_t k = d.offset[2]; k < d.offset[2] + block[2]; ++k) {
        data[n++] = vorpal_value(component, i, j, k, step);
      }
    }
  }
}

}  // namespace

Decomposition decompose(MPI_Comm comm, const Extent& block) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  Decomposition d;
  MPI_Dims_create(size, 3, d.dims.data());
  const Extent coords{rank / (d.dims[1] * d.dims[2]), rank / d.dims[2] % d.dims[1],
                      rank % d.dims[2]};
  for (std::size_t a = 0; a < 3; ++a) d.offset[a] = std::int64_t{coords[a]} * block[a];
  return d;
}

std::string dims_json(const Decomposition& d) {
  return "\"" + std::to_string(d.dims[0]) + "x" + std::to_string(d.dims[1]) + "x" +
         std::to_string(d.dims[2]) + "\"";
}

std::size_t VorpalRun::cells() const {
  return static_cast<std::size_t>(block[0]) * block[1] * block[2];
}

std::uint64_t VorpalRun::bytes() const {
  return 3 * cells() * sizeof(double);
}

VorpalRun vorpal_run(const Options& options) {
  const std::vector<int> b = options.extent("block", "100x100x60", 3);
  return {{b[0], b[1], b[2]}, options.positive("steps", 20)};
}

VorpalField allocate_vorpal(const Extent& block) {
  VorpalField field;
  for (auto& component : field) component.resize(VorpalRun{block, 0}.cells());
  return field;
}

void fill_vorpal(VorpalField& field, const Decomposition& d, const Extent& block, int step) {
  for (int c = 0; c < 3; ++c) fill_component(field[static_cast<std::size_t>(c)], c, d, block, step);
}

std::uint64_t VpicRun::bytes() const {
  return std::uint64_t{8} * 4 * static_cast<std::uint64_t>(particles);
}

VpicRun vpic_run(const Options& options) {
  return {options.positive("particles", 1 << 20), options.positive("steps", 5)};
}

Particles allocate_particles(int count) {
  Particles p;
  for (auto& v : p.values) v.resize(static_cast<std::size_t>(count));
  p.id1.resize(static_cast<std::size_t>(count));
  p.id2.resize(static_cast<std::size_t>(count));
  return p;
}

void fill_vpic(Particles& p, std::int64_t first, int step) {
  for (std::size_t n = 0; n < p.id1.size(); ++n) {
    const std::int64_t g = first + static_cast<std::int64_t>(n);
    for (int v = 0; v < 6; ++v)
      p.values[static_cast<std::size_t>(v)][n] = vpic_coordinate(v, g, step);
    p.id1[n] = static_cast<std::int32_t>(g % 2147483647);
    p.id2[n] = static_cast<std::int32_t>((2 * g + step) % 2147483647);
  }
}

}  // namespace apps
