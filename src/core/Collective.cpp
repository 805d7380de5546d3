// Collective error agreement.
#include "core/Collective.hpp"

#include <climits>

#include "ecluse/Error.hpp"

namespace ecluse {

std::string broadcast_string(MPI_Comm comm, const std::string& text, int root) {
  unsigned long long size = text.size();
  MPI_Bcast(&size, 1, MPI_UNSIGNED_LONG_LONG, root, comm);
  std::string out = text;
  out.resize(size);
  MPI_Bcast(out.data(), static_cast<int>(size), MPI_CHAR, root, comm);
  return out;
}

void run_collectively(MPI_Comm comm, const std::function<void()>& step) {
  int status = ECLUSE_OK;
  std::string message;
  try {
    step();
  } catch (const Error& e) {
    status = e.status();
    message = e.what();
  } catch (const std::exception& e) {
    status = ECLUSE_ERROR_UNKNOWN;
    message = e.what();
  }
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int mine = status == ECLUSE_OK ? INT_MAX : rank;
  int first = INT_MAX;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == INT_MAX) return;
  MPI_Bcast(&status, 1, MPI_INT, first, comm);
  message = broadcast_string(comm, message, first);
  throw Error(static_cast<ecluse_status>(status), message);
}

}  // namespace ecluse
