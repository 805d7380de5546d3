// The MPI exchanges Ecluse makes in more than one place: failing together with the message of
// the first failing rank, strings of any length, numbering the groups of a split communicator.
#pragma once

#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

namespace ecluse {

/** Runs `step` on every rank; if it throws ecluse::Error on any rank, every rank throws the
 * error of the lowest failing rank (same code, same message). Collective over comm. */
void run_collectively(MPI_Comm comm, const std::function<void()>& step);

/** Broadcasts a string from root. */
std::string broadcast_string(MPI_Comm comm, const std::string& text, int root);

/** gather_strings' root meaning "every rank receives". */
inline constexpr int kEveryRank = -1;

/** Every rank's bytes, in rank order: on every rank of comm (root kEveryRank, an allgather) or
 * on root only (the other ranks get an empty vector). Collective over comm. */
std::vector<std::string> gather_strings(MPI_Comm comm, const std::string& mine,
                                        int root = kEveryRank);

/** This rank's group among the groups `group` splits comm into, numbered by their lowest rank
 * in comm, and how many groups there are. Collective over comm. */
struct GroupNumber {
  int index = 0;
  int count = 1;
};
GroupNumber number_groups(MPI_Comm comm, MPI_Comm group);

}  // namespace ecluse
