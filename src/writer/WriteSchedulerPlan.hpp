// Who writes after whom in one round of a write schedule: the writers still taking part are
// spread over `concurrent` chains by their last write time, longest first, each to the least
// loaded chain, so the chains end together and at most `concurrent` writers write at once.
#pragma once

#include <vector>

namespace ecluse {

/** A departed writer's entry in the seconds of plan_turns: it takes no turn. */
inline constexpr double kDeparted = -1.0;

/** One writer's place in a round: the writer it waits for and the one that waits for it
 * (ranks, -1: none). */
struct Turn {
  int after = -1;
  int before = -1;
};

/** The turns of every writer, from each writer's last write time in seconds (kDeparted for a
 * writer that takes no turn). Ties keep rank order; the same input gives the same plan on
 * every rank. */
std::vector<Turn> plan_turns(const std::vector<double>& seconds, int concurrent);

}  // namespace ecluse
