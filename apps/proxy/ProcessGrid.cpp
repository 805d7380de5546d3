// The proxy's 2-D decomposition and halo exchange. Ranks are numbered row-major over (x, y),
// as MPI_Cart_create would, without making one more communicator.
#include "ProcessGrid.hpp"

namespace proxy {

namespace {

int wrap(int c, int n) {
  return (c % n + n) % n;
}

}  // namespace

ProcessGrid::ProcessGrid(MPI_Comm comm, std::array<int, 3> local) : comm_(comm), local_(local) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm_, &rank);
  MPI_Comm_size(comm_, &size);
  MPI_Dims_create(size, 2, dims_.data());
  coords_ = {rank / dims_[1], rank % dims_[1]};
  const int row = (ny() + 2) * nz();
  // An x face (fixed i) is contiguous; a y face (fixed j) is one z column per i, ghosts included.
  MPI_Type_contiguous(row, MPI_DOUBLE, &x_face_);
  MPI_Type_vector(nx() + 2, nz(), row, MPI_DOUBLE, &y_face_);
  MPI_Type_commit(&x_face_);
  MPI_Type_commit(&y_face_);
}

ProcessGrid::~ProcessGrid() {
  MPI_Type_free(&x_face_);
  MPI_Type_free(&y_face_);
}

std::array<std::int64_t, 3> ProcessGrid::offset() const {
  return {std::int64_t{coords_[0]} * nx(), std::int64_t{coords_[1]} * ny(), 0};
}

std::array<std::int64_t, 3> ProcessGrid::global() const {
  return {std::int64_t{px()} * nx(), std::int64_t{py()} * ny(), nz()};
}

std::size_t ProcessGrid::volume() const {
  return static_cast<std::size_t>(nx() + 2) * static_cast<std::size_t>(ny() + 2) *
         static_cast<std::size_t>(nz());
}

std::size_t ProcessGrid::index(int i, int j, int k) const {
  return (static_cast<std::size_t>(i) * static_cast<std::size_t>(ny() + 2) +
          static_cast<std::size_t>(j)) *
             static_cast<std::size_t>(nz()) +
         static_cast<std::size_t>(k);
}

int ProcessGrid::rank_of(int cx, int cy) const {
  return wrap(cx, px()) * py() + wrap(cy, py());
}

void ProcessGrid::exchange(double* field) const {
  exchange_x(field);
  exchange_y(field);
}

void ProcessGrid::exchange_x(double* field) const {
  const int east = rank_of(coords_[0] + 1, coords_[1]);
  const int west = rank_of(coords_[0] - 1, coords_[1]);
  MPI_Sendrecv(field + index(nx(), 0, 0), 1, x_face_, east, 0, field + index(0, 0, 0), 1, x_face_,
               west, 0, comm_, MPI_STATUS_IGNORE);
  MPI_Sendrecv(field + index(1, 0, 0), 1, x_face_, west, 1, field + index(nx() + 1, 0, 0), 1,
               x_face_, east, 1, comm_, MPI_STATUS_IGNORE);
}

void ProcessGrid::exchange_y(double* field) const {
  const int north = rank_of(coords_[0], coords_[1] + 1);
  const int south = rank_of(coords_[0], coords_[1] - 1);
  MPI_Sendrecv(field + index(0, ny(), 0), 1, y_face_, north, 2, field + index(0, 0, 0), 1, y_face_,
               south, 2, comm_, MPI_STATUS_IGNORE);
  MPI_Sendrecv(field + index(0, 1, 0), 1, y_face_, south, 3, field + index(0, ny() + 1, 0), 1,
               y_face_, north, 3, comm_, MPI_STATUS_IGNORE);
}

}  // namespace proxy
