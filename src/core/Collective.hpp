// The MPI exchanges Ecluse makes in more than one place: failing together with the message of
// the first failing rank, strings of any length, numbering the groups of a split communicator.
// Every collective here is nonblocking underneath and completed within ECLUSE_TIMEOUT, else the
// job is aborted with a message naming the wait: a dead or stuck peer never hangs a run.
#pragma once

#include <mpi.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace ecluse {

/** Seconds any wait of Ecluse lasts at most (ECLUSE_TIMEOUT, default 600, at most 30 days). */
std::chrono::seconds wait_timeout();

/** Whether ECLUSE_TIMEOUT is set: some waits (a server for silent clients, finalize's exchange,
 * the Collective store's HDF5 calls) are bounded by it only then. */
bool timeout_is_set();

/** Exit status of a job aborted because a wait outlasted ECLUSE_TIMEOUT (as timeout(1)). */
inline constexpr int kTimeoutExitCode = 124;

/** Prints "ecluse: timeout (ECLUSE_TIMEOUT=N s) waiting <what>" on stderr and aborts the job
 * (MPI_Abort on MPI_COMM_WORLD): a peer that never arrives cannot be waited out, and a rank
 * that returned an error instead would hang in the next collective. */
[[noreturn]] void abort_on_timeout(const std::string& what);

/** What abort_on_timeout does, for a thread that knows its world rank (`world_rank`) and may
 * not call MPI while another thread is inside it: prints "ecluse: world rank R: timeout
 * (ECLUSE_TIMEOUT=N s) waiting <what>", hands the failure to the partial report, then ends the
 * job (MPI_Abort when `may_abort`, else _exit; exit status kTimeoutExitCode either way). */
[[noreturn]] void end_on_timeout(int world_rank, const std::string& what, bool may_abort);

/** Names, for timeout messages, what the collectives of a scope wait for ("in finalize for the
 * report gather"); the innermost scope of the thread wins. */
class WaitScope {
 public:
  /** How long the scope's collectives may wait. Paced: as long as the peers' own work takes (a
   * client's checkpoint between stop and finalize, a server storing its backlog): ECLUSE_TIMEOUT
   * when set, else kPacedWait, so that a peer that died unseen (MPI's error recovery) still
   * ends the wait. */
  enum class Bound { Timeout, PacedByPeers };
  explicit WaitScope(std::string what, Bound bound = Bound::Timeout);
  ~WaitScope();
  WaitScope(const WaitScope&) = delete;
  WaitScope& operator=(const WaitScope&) = delete;

 private:
  std::string previous_;
  Bound previous_bound_;
};

/** How long a wait paced by the peers' own work lasts at most without ECLUSE_TIMEOUT. */
inline constexpr std::chrono::hours kPacedWait{24};

/** How long this thread's collectives may wait now: wait_timeout(), or in a scope paced by its
 * peers' work without ECLUSE_TIMEOUT set, kPacedWait. */
std::chrono::seconds current_wait_bound();

/** Completes `request` (a nonblocking collective named `operation` over comm) within
 * wait_timeout() when waits_are_bounded(), polling with a growing pause; else
 * abort_on_timeout. */
void complete(MPI_Request& request, MPI_Comm comm, const char* operation);

/** MPI_Barrier within the timeout. */
void barrier(MPI_Comm comm);
/** MPI_Allreduce of one int, bounded by ECLUSE_TIMEOUT. */
int allreduce_int(MPI_Comm comm, int value, MPI_Op op);
/** MPI_Send and MPI_Recv bounded by ECLUSE_TIMEOUT (nonblocking, then complete()). */
void send_bounded(const void* data, int count, MPI_Datatype type, int to, int tag, MPI_Comm comm);
void receive_bounded(void* data, int count, MPI_Datatype type, int from, int tag, MPI_Comm comm);
/** MPI_Probe bounded by ECLUSE_TIMEOUT: the number of `type` elements of the next message. */
int probe_bounded(int from, int tag, MPI_Comm comm, MPI_Datatype type);

/** MPI_Comm_split(comm, color, key), and MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, key):
 * a bounded barrier first, then the split bounded by the watchdog (core/Watchdog), since
 * neither has a nonblocking form; a rank that died between the two ends the job within
 * ECLUSE_TIMEOUT instead of hanging it. */
MPI_Comm split_bounded(MPI_Comm comm, int color, int key);
MPI_Comm split_shared_bounded(MPI_Comm comm, int key);

/** MPI_Comm_dup within the timeout. */
MPI_Comm duplicate(MPI_Comm comm);

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
