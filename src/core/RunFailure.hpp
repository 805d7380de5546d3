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
};

/** Installs the handler (the runtime: one per process; an empty function removes it). */
void set_failure_handler(std::function<void(const RunFailure&)> handler);

/** Hands a failure to the handler, if any; never throws. At most a few per process. */
void report_failure(const RunFailure& failure) noexcept;

/** A peer is gone: report_failure, then throw ECLUSE_CHANNEL_ERROR with the failure's cause. */
[[noreturn]] void fail_on_lost_peer(const RunFailure& failure);

}  // namespace ecluse
