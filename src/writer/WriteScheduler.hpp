// Scheduled writes (seed 003's slots): the writers of a store take turns so that at most
// `concurrent` of them write at once; each round is planned from the writers' previous write
// times (plan_turns), every wait bounded by ECLUSE_TIMEOUT. docs/scheduling.md.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "accounting/Accounting.hpp"
#include "writer/WriteSchedulerPlan.hpp"

namespace ecluse {

/** Time spent waiting for turns. */
struct TurnWaits {
  std::uint64_t count = 0;  // turns taken
  double seconds = 0;       // waited in all
  double longest = 0;       // the longest single wait
};

class WriteScheduler {
 public:
  /** Collective over `writers` (duplicated: the schedule's messages stay its own). `name`
   * names the store in timeout messages. */
  WriteScheduler(MPI_Comm writers, int concurrent, std::string name);
  ~WriteScheduler();
  WriteScheduler(const WriteScheduler&) = delete;
  WriteScheduler& operator=(const WriteScheduler&) = delete;

  /** Starts a round (collective over the writers taking part, departed ones included through
   * leave) and returns once this writer may write. */
  void wait_turn();
  /** This writer's write took `seconds`: hands the turn to the next writer of its chain. */
  void end_turn(double seconds);
  /** Takes no more turns: joins the others' remaining rounds until every writer left.
   * Idempotent; call it once every write is done (at finalize). */
  void leave();

  [[nodiscard]] const TurnWaits& waits() const { return waits_; }

 private:
  /** Every writer's last write time (kDeparted for writers that left) for this round. */
  std::vector<double> exchange(double mine);
  MPI_Comm comm_ = MPI_COMM_NULL;
  int concurrent_;
  std::string name_;
  std::uint64_t round_ = 0;
  double last_seconds_ = 0;
  Turn turn_;
  bool in_turn_ = false;
  bool left_ = false;
  TurnWaits waits_;
};

/** Ends the turn when the write is done, thrown or not: a failing store never holds the
 * others back. */
class TurnScope {
 public:
  /** Waits for the turn (nothing without a scheduler) in Phase::Wait. */
  TurnScope(WriteScheduler* scheduler, Accounting& accounting);
  ~TurnScope();
  TurnScope(const TurnScope&) = delete;
  TurnScope& operator=(const TurnScope&) = delete;

 private:
  WriteScheduler* scheduler_;
  double start_ = 0;
};

}  // namespace ecluse
