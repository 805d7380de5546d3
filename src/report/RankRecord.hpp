// What one rank contributes to the run report, and how it travels to rank 0: a fixed part,
// its iteration series, and "key=value" lines (statistics, energy labels, frequency actions).
#pragma once

#include <mpi.h>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "accounting/Accounting.hpp"

namespace ecluse {

struct RankTotals {
  std::int32_t rank = 0, role = 0, node = 0, host = 0;
  double wall = 0;  // initialize to finalize
  double cpu = 0;   // process user + system
  double bytes = 0;
  std::array<PhaseTime, kPhaseCount> phases{};
};

struct RankRecord {
  RankTotals totals;
  std::vector<IterationRecord> iterations;
  std::map<std::string, std::string> labels;  // "stat.<name>", "energy.<field>", "frequency.*"
};

/** Process CPU time (user + system) from getrusage. */
double process_cpu_seconds_now();

/** Gathers every rank's record on rank 0 of comm (empty elsewhere). Collective. */
std::vector<RankRecord> gather_records(const RankRecord& mine, MPI_Comm comm);

}  // namespace ecluse
