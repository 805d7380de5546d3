// What one rank contributes to the run report, and how it travels to rank 0: its totals, its
// iterations' summary (fixed size, whatever the number of iterations), its counters, its host's
// energy (host leaders) and its frequency actions, every number as a number until the JSON is
// written.
#pragma once

#include <mpi.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "accounting/Accounting.hpp"
#include "core/Role.hpp"
#include "frequency/FrequencyGovernor.hpp"
#include "report/HostEnergy.hpp"
#include "transport/Statistic.hpp"

namespace ecluse {

struct RankTotals {
  std::int32_t rank = 0;
  Role role = Role::Client;
  std::int32_t node = 0, host = 0;
  double wall = 0;  // initialize to finalize
  double cpu = 0;   // process user + system
  double bytes = 0;
  // A client's wait in finalize for its servers to store what they still held (part of its
  // setup phase): the drain at the end of a DC or DN run.
  double finalize_wait = 0;
  std::array<PhaseTime, kPhaseCount> phases{};
};

struct RankRecord {
  RankTotals totals;
  IterationSeries series;
  Statistics statistics;
  std::optional<HostEnergyFigure> energy;  // a host's first rank: its host's energy
  FrequencyRecord frequency;
};

/** Process CPU time (user + system) from getrusage. */
double process_cpu_seconds_now();

/** Gathers every rank's record on rank 0 of comm (empty elsewhere). Collective. */
std::vector<RankRecord> gather_records(const RankRecord& mine, MPI_Comm comm);

}  // namespace ecluse
