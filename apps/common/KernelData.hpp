// The VORPAL-IO and VPIC-IO kernels' data, shared by the kernels and their baselines: values
// known from the global index and the step alone (check_output.py repeats them in NumPy).
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <vector>

namespace apps {

using Extent = std::array<int, 3>;

/** A rank's place on the VORPAL-IO 3-D process grid (ranks row-major, as MPI_Cart_create). */
struct Decomposition {
  Extent dims{0, 0, 0};
  std::array<std::int64_t, 3> offset{};
};

Decomposition decompose(MPI_Comm comm, const Extent& block);

/** One VORPAL-IO component of this rank's block at a step, C order. */
void fill_vorpal(std::vector<double>& data, int component, const Decomposition& d,
                 const Extent& block, int step);

/** VPIC-IO particles: x, y, z, px, py, pz (float), then id1, id2 (int32). */
struct Particles {
  std::array<std::vector<float>, 6> values;
  std::vector<std::int32_t> id1, id2;
};

Particles allocate_particles(int count);

/** The particles numbered from `first` on at a step. */
void fill_vpic(Particles& p, std::int64_t first, int step);

}  // namespace apps
