// The VORPAL-IO and VPIC-IO kernels' data, shared by the kernels and their baselines: values
// known from the global index and the step alone (check_output.py repeats them in NumPy).
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "Options.hpp"

namespace apps {

using Extent = std::array<int, 3>;

/** A rank's place on the VORPAL-IO 3-D process grid (ranks row-major, as MPI_Cart_create). */
struct Decomposition {
  Extent dims{0, 0, 0};
  std::array<std::int64_t, 3> offset{};
};

Decomposition decompose(MPI_Comm comm, const Extent& block);

/** The process grid as a JSON string, e.g. "\"2x1x1\"". */
std::string dims_json(const Decomposition& d);

/** VORPAL-IO: the field's three components (ex, ey, ez), each a block in C order. */
inline constexpr std::array<const char*, 3> kVorpalComponents = {"ex", "ey", "ez"};
using VorpalField = std::array<std::vector<double>, 3>;

/** --block (default 100x100x60, per rank) and --steps (default 20). */
struct VorpalRun {
  Extent block{};
  int steps = 0;

  [[nodiscard]] std::size_t cells() const;
  [[nodiscard]] std::uint64_t bytes() const;  ///< of one step: three components
};

VorpalRun vorpal_run(const Options& options);

VorpalField allocate_vorpal(const Extent& block);

/** Every component of this rank's block at a step. */
void fill_vorpal(VorpalField& field, const Decomposition& d, const Extent& block, int step);

/** VPIC-IO particles: x, y, z, px, py, pz (float), then id1, id2 (int32). */
inline constexpr std::array<const char*, 6> kVpicFloats = {"x", "y", "z", "px", "py", "pz"};
struct Particles {
  std::array<std::vector<float>, 6> values;
  std::vector<std::int32_t> id1, id2;
};

/** --particles (default 1048576, per rank) and --steps (default 5). */
struct VpicRun {
  int particles = 0;
  int steps = 0;

  [[nodiscard]] std::uint64_t bytes() const;  ///< of one step: 8 variables of 4 bytes
};

VpicRun vpic_run(const Options& options);

Particles allocate_particles(int count);

/** The particles numbered from `first` on at a step. */
void fill_vpic(Particles& p, std::int64_t first, int step);

}  // namespace apps
