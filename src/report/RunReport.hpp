// The run report: every rank's accounting gathered on rank 0, aggregated by role and phase,
// energy per host apportioned by CPU time, written as JSON (docs/report.md) with a summary.
#pragma once

#include <array>
#include <map>
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
  double finalize_wait = 0;  // RankTotals::finalize_wait, summed
  std::array<PhaseTime, kPhaseCount> phases{};
  std::array<double, kPhaseCount> phase_joules{};
};

/** CPU time a host spent beyond the job's ranks (other processes, the kernel's own threads),
 * from its busy time and its ranks' CPU; 0 when the busy time is unknown. */
double other_cpu_seconds(const HostEnergyFigure& f);
/** Other processes' load is told when above both: a short run's noise is not. */
inline constexpr double kOtherLoadSeconds = 0.5;
inline constexpr double kOtherLoadShare = 0.25;  // of the host's busy CPU time
bool has_other_load(const HostEnergyFigure& f);

struct EnergyTotals {
  double joules = 0;  // over the hosts with a source: measured_joules + modelled_joules
  double measured_joules = 0, modelled_joules = 0;
  double watts = 0;              // sum over those hosts of each host's joules / seconds it measured
  int hosts_without_energy = 0;  // source "none": left out of the sums
  // Hosts whose CPUs other processes kept busy (other_load), and their CPU time in all: the
  // energy figure counts their load too.
  int hosts_with_other_load = 0;
  double other_cpu_s = 0;
  // "mixed" when hosts differ; quality "measured-partial" when some hosts have no source
  std::string source, quality, calibration;
  std::vector<HostEnergyFigure> hosts;
};

/** A role's iterations: its ranks' series merged, and the largest of its ranks' means (the
 * slowest rank, which the others wait for when they synchronize). */
struct RoleSeries {
  IterationSeries merged;
  std::array<double, kSeriesCount> slowest_mean{};
};

/** The aggregated run, from which both the JSON and the summary are made. */
struct RunTotals {
  Approach approach = Approach::TP;
  int ranks = 0, nodes = 0, hosts = 0;
  double completion = 0, client_bytes = 0;
  std::array<RoleTotals, kRoleCount> roles{};  // by index_of(Role)
  EnergyTotals energy;
  std::array<RoleSeries, kRoleCount> series{};  // by index_of(Role)
  /** The role that stores: the clients in TP, else the servers (merged: one role per run). */
  RoleSeries storing;
  /** The ranks' counters, each combined over ranks as its key says (sum, maximum or minimum). */
  std::map<Statistic, double> statistics;
  std::string trace;  // the trace files, {rank} standing for the rank; "" without a trace
};

/** Aggregates the records of all ranks (rank order). */
RunTotals aggregate(const Config& config, const std::vector<RankRecord>& records, int nodes,
                    int hosts);
/** The report document (schema ecluse-report/2). */
Json build_report(const Config& config, const RunTotals& totals,
                  const std::vector<RankRecord>& records);
/** A few lines for rank 0's stdout (publish_report adds the least-cost line). */
std::string report_summary(const RunTotals& totals, const std::vector<RankRecord>& records,
                           const std::string& file);
/** The summary's last line when the run was not launched by `ecluse run`: how to get the
 * model's least-cost approach for this run (`written`: the report's path, "" if none). */
std::string least_cost_hint(const std::string& written);

/** Where the report goes: ECLUSE_REPORT, else <report file>, with {simulation}; "" for none. */
std::string report_path(const Config& config);
/** Under `ecluse run` (ECLUSE_RUN_REPORTS), adds the report's path to the launcher's list, so
 * that it reads it once the command ended (its least-cost line, what was not stored); true
 * otherwise too. Finalize's report and the survivors' partial report both are. */
bool note_report_for_launcher(const std::string& report);
/** Under `ecluse run`, where a report that cannot go to its own path (`ECLUSE_REPORT=none`, a
 * report directory that refuses it) is written instead, so that the launcher still reads what
 * was not stored and exits non-zero for it: `<its list>.<name>`, in the launcher's temporary
 * directory (removed when `ecluse run` ends). "" when not under `ecluse run`. */
std::string launcher_copy_path(const std::string& name);
/** Under `ecluse run`, before rank 0 moves an earlier run's report away at initialize: if
 * `ecluse run` listed that report (an earlier run of the same command: a job script that runs
 * the simulation twice), a copy goes to its temporary directory and is listed, since the
 * launcher reads its list only once the command ended, when this run's report has replaced it:
 * the earlier run's failures would otherwise go unseen. */
void keep_earlier_report_for_launcher(const std::string& report);
/** Rank 0 at initialize: the path this run writes its report to. `<report>.running` (host and
 * pid) claims the report's path for the run; when another run that still lives holds it (runs
 * of one simulation started at once in one directory, as Damaris's Dask statistics workflow
 * starts them), this run's report goes to `<report>.<pid>.json` instead, said in a warning, so
 * that neither replaces the other's. Otherwise the earlier report is retired
 * (retire_previous_report). "" without a report; never throws. */
std::string claim_report_path(const Config& config, Log& log);
/** Rank 0 when the run ends: removes the claim, if it is this process's. */
void release_report_claim(const std::string& report) noexcept;

/** Rank 0 at initialize: the report file of an earlier run is moved to `<report>.previous`, so
 * that the report on disk is always this run's (a run killed before finalize left the earlier
 * run's complete report beside its own files). A report directory that is missing or not
 * writable is warned at once, with the fix, rather than after the whole run. */
void retire_previous_report(const Config& config, Log& log);

/** Writes `text` to `path` whole or not at all: into an unnamed temporary file of the same
 * directory, named "<path>.<pid>.part" once complete, then renamed over `path`. False (and no
 * file left) on failure. */
bool write_file_whole(const std::string& path, const std::string& text);  // false: errno says why
/** The trace files: ECLUSE_TRACE, else <report trace>, with {simulation}, as an absolute path
 * holding {rank} (appended as ".{rank}" when absent); "" for no trace (the default). */
std::string trace_pattern(const Config& config);
/** Starts this rank's trace when one is asked for; a file that cannot be opened is warned about. */
void start_trace(Accounting& accounting, const Config& config, int rank, Role role, Log& log);

/** Rank 0: aggregates, writes the report file (written whole, then renamed) and prints the
 * summary; a failure to write is logged, never thrown. */
void publish_report(const Config& config, const std::vector<RankRecord>& records, int nodes,
                    int hosts, Log& log);

/** The role's totals. */
inline RoleTotals& of(RunTotals& t, Role role) {
  return t.roles.at(index_of(role));
}

}  // namespace ecluse
