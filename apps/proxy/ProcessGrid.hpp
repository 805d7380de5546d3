// The proxy's domain decomposition: a 2-D process grid over x and y (z whole on each rank),
// periodic in x and y, with the halo exchange of one field on the clients' communicator.
#pragma once

#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>

namespace proxy {

class ProcessGrid {
 public:
  /** local: the interior size of every rank's block (nx, ny, nz). */
  ProcessGrid(MPI_Comm comm, std::array<int, 3> local);
  ~ProcessGrid();
  ProcessGrid(const ProcessGrid&) = delete;
  ProcessGrid& operator=(const ProcessGrid&) = delete;

  [[nodiscard]] int nx() const { return local_[0]; }
  [[nodiscard]] int ny() const { return local_[1]; }
  [[nodiscard]] int nz() const { return local_[2]; }
  [[nodiscard]] int px() const { return dims_[0]; }
  [[nodiscard]] int py() const { return dims_[1]; }
  /** Global offset of this rank's interior, in (x, y, z). */
  [[nodiscard]] std::array<std::int64_t, 3> offset() const;
  [[nodiscard]] std::array<std::int64_t, 3> global() const;
  /** Elements of one field with its ghost layer: (nx + 2) x (ny + 2) x nz. */
  [[nodiscard]] std::size_t volume() const;
  /** Index of (i, j, k) in a ghosted field, i and j counting the ghost layer (0 = ghost). */
  [[nodiscard]] std::size_t index(int i, int j, int k) const;
  /** Fills the ghost layer of one field from the neighbours (periodic in x and y). */
  void exchange(double* field) const;

 private:
  [[nodiscard]] int rank_of(int cx, int cy) const;
  void exchange_x(double* field) const;
  void exchange_y(double* field) const;

  MPI_Comm comm_;
  std::array<int, 3> local_;
  std::array<int, 2> dims_{0, 0};
  std::array<int, 2> coords_{0, 0};
  MPI_Datatype x_face_ = MPI_DATATYPE_NULL;
  MPI_Datatype y_face_ = MPI_DATATYPE_NULL;
};

}  // namespace proxy
