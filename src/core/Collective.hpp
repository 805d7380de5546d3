// Makes every rank of a communicator fail together, with the message of the first failing rank.
#pragma once

#include <mpi.h>

#include <functional>
#include <string>

namespace ecluse {

/** Runs `step` on every rank; if it throws ecluse::Error on any rank, every rank throws the
 * error of the lowest failing rank (same code, same message). Collective over comm. */
void run_collectively(MPI_Comm comm, const std::function<void()>& step);

/** Broadcasts a string from root. */
std::string broadcast_string(MPI_Comm comm, const std::string& text, int root);

}  // namespace ecluse
