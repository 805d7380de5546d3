// What a surviving process knows when the run breaks (a peer died, a wait timed out): passed to
// the handler the runtime installs, which adds it to a partial run report before the process
// gives up (docs/report.md, "After a failure"). The layers that detect a failure sit below the
// report, hence this indirection.
#pragma once

#include <functional>
#include <string>

namespace ecluse {

/** One failure seen by this process. Unknown numbers are -1. */
struct RunFailure {
  std::string cause;         // the message this process prints
  std::string lost_role;     // "simulation", "dedicated-core", "dedicated-node"; "" if unknown
  int lost_world_rank = -1;  // the process that died
  long long lost_pid = -1;
  int first_lost_iteration = -1;  // the iterations this process knows are not stored
  int last_lost_iteration = -1;
  /** first_lost_iteration and every later one the clients handed over (a server ended by a
   * signal cannot know those still on their way to it); last_lost_iteration is then unused. */
  bool and_later = false;
};

/** Installs the handler (the runtime: one per process; an empty function removes it). */
void set_failure_handler(std::function<void(const RunFailure&)> handler);

/** Hands a failure to the handler, if any; never throws. At most a few per process. */
void report_failure(const RunFailure& failure) noexcept;

/** A peer is gone: report_failure, marks this process as one that lost a peer (see
 * bound_finalize_after_lost_peer), then throws ECLUSE_CHANNEL_ERROR with the failure's cause. */
[[noreturn]] void fail_on_lost_peer(const RunFailure& failure);

/** Whether fail_on_lost_peer was called in this process. */
bool lost_a_peer() noexcept;

/** The cause given to the first fail_on_lost_peer of this process; empty before. */
std::string lost_peer_cause();

/** MPI_Finalize with a dead peer may never return (Open MPI 4.1 under --enable-recovery waits in
 * its final fence for ever): in a process that lost a peer, bounds it. Registers once per
 * process, from the thread that initialized MPI (at initialize), a delete callback on an
 * attribute of MPI_COMM_SELF, which MPI runs first thing in MPI_Finalize. If this process lost
 * a peer by then, the callback starts a thread that, if the process still runs wait_timeout()
 * later, prints "ecluse: world rank R: timeout (ECLUSE_TIMEOUT=N s) waiting in MPI_Finalize
 * ..." and ends it with exit status 124 (end_on_timeout, without MPI_Abort). */
void bound_finalize_after_lost_peer();

}  // namespace ecluse
