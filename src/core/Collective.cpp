// Collective error agreement, variable-length exchange, group numbering.
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

namespace {

std::vector<int> offsets_of(const std::vector<int>& lengths) {
  std::vector<int> offsets(lengths.size(), 0);
  for (std::size_t i = 1; i < lengths.size(); ++i) offsets[i] = offsets[i - 1] + lengths[i - 1];
  return offsets;
}

}  // namespace

std::vector<std::string> gather_strings(MPI_Comm comm, const std::string& mine, int root) {
  const bool everywhere = root == kEveryRank;
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(size), 0);
  if (everywhere) {
    MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm);
  } else {
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, root, comm);
  }
  const std::vector<int> offsets = offsets_of(lengths);
  std::string all(static_cast<std::size_t>(offsets.back() + lengths.back()), '\0');
  if (everywhere) {
    MPI_Allgatherv(mine.data(), length, MPI_BYTE, all.data(), lengths.data(), offsets.data(),
                   MPI_BYTE, comm);
  } else {
    MPI_Gatherv(mine.data(), length, MPI_BYTE, all.data(), lengths.data(), offsets.data(), MPI_BYTE,
                root, comm);
  }
  std::vector<std::string> parts;
  if (!everywhere && rank != root) return parts;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    parts.push_back(
        all.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(lengths[i])));
  }
  return parts;
}

// The first rank of each group counts itself; an exclusive scan numbers the groups in order.
GroupNumber number_groups(MPI_Comm comm, MPI_Comm group) {
  int rank = 0, group_rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_rank(group, &group_rank);
  int leader = group_rank == 0 ? 1 : 0;
  int before = 0;
  MPI_Exscan(&leader, &before, 1, MPI_INT, MPI_SUM, comm);
  GroupNumber number;
  number.index = rank == 0 ? 0 : before;  // MPI_Exscan leaves rank 0's result undefined
  MPI_Bcast(&number.index, 1, MPI_INT, 0, group);
  MPI_Allreduce(&leader, &number.count, 1, MPI_INT, MPI_SUM, comm);
  return number;
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
