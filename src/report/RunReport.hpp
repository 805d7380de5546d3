// The run report: every rank's accounting gathered on rank 0, aggregated by role and phase,
// energy per host apportioned by CPU time, written as JSON (docs/report.md) with a summary.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "config/Config.hpp"
#include "core/Log.hpp"
#include "report/HostEnergy.hpp"
#include "report/Json.hpp"
#include "report/RankRecord.hpp"

namespace ecluse {

struct RoleTotals {
  int ranks = 0;
  double wall = 0, cpu = 0, bytes = 0, joules = 0;
  std::array<PhaseTime, kPhaseCount> phases{};
  std::array<double, kPhaseCount> phase_joules{};
};

struct EnergyTotals {
  double joules = 0;
  double watts = 0;  // sum over hosts of each host's joules / seconds it measured
  std::string source, quality, calibration;  // "mixed" when hosts differ
  std::vector<HostEnergyFigure> hosts;
};

/** The aggregated run, from which both the JSON and the summary are made. */
struct RunTotals {
  Approach approach = Approach::TP;
  int ranks = 0, nodes = 0, hosts = 0;
  double completion = 0, client_bytes = 0;
  std::array<RoleTotals, kRoleCount> roles{};  // by index_of(Role)
  EnergyTotals energy;
  double mean_write = 0, max_write = 0;  // client-visible, per iteration
};

/** Aggregates the records of all ranks (rank order). */
RunTotals aggregate(const Config& config, const std::vector<RankRecord>& records, int nodes,
                    int hosts);
/** The report document (schema ecluse-report/1). */
Json build_report(const Config& config, const RunTotals& totals,
                  const std::vector<RankRecord>& records);
/** A few lines for rank 0's stdout. */
std::string report_summary(const RunTotals& totals, const std::vector<RankRecord>& records,
                           const std::string& file);

/** Where the report goes: ECLUSE_REPORT, else <report file>, with {simulation}; "" for none. */
std::string report_path(const Config& config);

/** Rank 0: aggregates, writes the report file (written whole, then renamed) and prints the
 * summary; a failure to write is logged, never thrown. */
void publish_report(const Config& config, const std::vector<RankRecord>& records, int nodes,
                    int hosts, Log& log);

/** The role's totals. */
inline RoleTotals& of(RunTotals& t, Role role) {
  return t.roles.at(index_of(role));
}

}  // namespace ecluse
