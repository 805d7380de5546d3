// The report's few lines on rank 0's stdout, and publishing the report: file, then summary.
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

#include "report/RunReport.hpp"

namespace ecluse {

namespace {

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

std::string roles_line(const RunTotals& t) {
  std::string roles;
  for (const Role role_key : kRoles) {
    const RoleTotals& role = t.roles[index_of(role_key)];
    if (role.ranks == 0) continue;
    roles += std::string(roles.empty() ? "" : ", ") + std::string(name_of(role_key)) + " " +
             std::to_string(role.ranks);
  }
  return "  approach " + std::string(name_of(t.approach)) + ", " + std::to_string(t.ranks) +
         " ranks on " + std::to_string(t.nodes) + " node(s), " + std::to_string(t.hosts) +
         " host(s): " + roles + "\n";
}

// The client-visible write time of the iterations that wrote: iterations handing nothing over
// would pull the mean towards zero.
std::string writes_line(const RunTotals& t) {
  const SeriesCounters& c = t.series[index_of(Role::Client)].merged.counters;
  const Distribution& write = t.series[index_of(Role::Client)].merged.of(Series::Write);
  std::string s = "  completion " + format("%.3f s", t.completion) + "; ";
  const std::string of_all = std::to_string(c.outputs.count) + " of " +
                             std::to_string(c.ended.count) + " iteration(s) wrote";
  if (write.count() == 0) return s + "no client wrote (" + of_all + ")\n";
  return s + "client write per output iteration mean " + format("%.3f ms", write.mean() * 1e3) +
         ", max " + format("%.3f ms", write.max() * 1e3) + " (" + of_all + ")\n";
}

std::string cpu_line(const RunTotals& t) {
  std::string cpu;
  for (const Role role_key : kRoles) {
    const RoleTotals& role = t.roles[index_of(role_key)];
    if (role.ranks == 0) continue;
    cpu += std::string(cpu.empty() ? "" : ", ") + std::string(name_of(role_key)) + " " +
           format("%.1f%%", role.wall > 0 ? 100 * role.cpu / role.wall : 0);
  }
  return "  CPU usage: " + cpu + "\n";
}

// Backpressure: clients waiting for room in the buffer (DC), for credit (DN) or for their turn to
// write (TP with ConcurrentWriters), when it took at least this share of their time.
constexpr double kNoticeableWait = 0.05;

double statistic(const RunTotals& t, Statistic key) {
  const auto it = t.statistics.find(key);
  return it == t.statistics.end() ? 0 : it->second;
}

/** What the clients of an approach wait for, the counters of those waits (seconds, and how many
 * times: none for turns) and what to change. */
struct WaitKind {
  const char* what;
  Statistic seconds;
  std::optional<Statistic> count;
  const char* cause;
};

WaitKind wait_kind(Approach approach) {
  switch (approach) {
    case Approach::DC:
      return {"for room in the buffer", Statistic::DcBufferWaitSeconds, Statistic::DcBufferWaits,
              "the dedicated cores store slower than the simulation hands data over, or the "
              "buffer holds fewer than two of a client's iterations (ecluse-check --ranks N says "
              "how many): raise <buffer size>, add dedicated cores or write less often"};
    case Approach::DN:
      return {"for credit from the dedicated nodes", Statistic::DnCreditWaitSeconds,
              Statistic::DnCreditWaits,
              "the dedicated nodes store slower than the simulation hands data over, or a "
              "client's share of their receive memory holds fewer than two of its iterations "
              "(ecluse-check --ranks N says how many): raise <buffer size>, add dedicated nodes "
              "or write less often"};
    case Approach::TP:
      break;
  }
  return {"for their turn to write", Statistic::ScheduleWaitSeconds, std::nullopt,
          "ConcurrentWriters lets fewer ranks write at once than want to: raise it (0: all at "
          "once) or write less often"};
}

std::string wait_line(const RunTotals& t, const WaitKind& kind) {
  const RoleTotals& clients = t.roles[index_of(Role::Client)];
  const double wait = statistic(t, kind.seconds);
  if (clients.ranks == 0 || clients.wall <= 0 || wait < kNoticeableWait * clients.wall) return "";
  const std::string count =
      kind.count ? ", " + format("%.0f", statistic(t, *kind.count)) + " wait(s) in all" : "";
  return "  waits: the clients waited " + std::string(kind.what) + " " +
         format("%.1f%%", 100 * wait / clients.wall) + " of their time (" +
         format("%.3f s", wait / clients.ranks) + " per client" + count + "): " + kind.cause + "\n";
}

std::string waits_lines(const RunTotals& t) {
  std::string s = wait_line(t, wait_kind(t.approach));
  if (t.approach != Approach::DC) return s;
  return s + wait_line(t, {"for room in the dedicated cores' event queues",
                           Statistic::DcQueueWaitSeconds, Statistic::DcQueueWaits,
                           "an iteration hands over more blocks than a queue holds (then "
                           "initialize warned, with the <queue size> that holds two iterations), "
                           "or the dedicated cores' own threads were busy storing (Collective "
                           "stores, actions, scripts) while the clients handed over more"});
}

// A backlog the servers still held at finalize: clients waited there for it to be stored (a
// run of many tiny iterations may wait tens of seconds), which the completion time holds. The
// wait also holds slower clients' arrival: said when it is both a second and 5% of their time.
std::string finalize_line(const RunTotals& t) {
  const RoleTotals& clients = t.roles[index_of(Role::Client)];
  if (clients.ranks == 0 || clients.wall <= 0) return "";
  const double wait = clients.finalize_wait / clients.ranks;
  const double share = clients.finalize_wait / clients.wall;
  if (wait < 1.0 || share < kNoticeableWait) return "";
  const char* servers = t.approach == Approach::DN ? "dedicated nodes" : "dedicated cores";
  return "  finalize: the clients waited " + format("%.3f s", wait) + " each (" +
         format("%.1f%%", 100 * share) + " of their time) at finalize for the " + servers +
         " to store what they still held, or for slower clients: if the servers, they store "
         "slower than the simulation hands data over (see their store time per iteration in the "
         "report): write less often or add dedicated resources\n";
}

// Every source counts the whole host: another job's load is in the figure.
std::string other_load_line(const RunTotals& t) {
  if (t.energy.hosts_with_other_load == 0) return "";
  return "  energy note: other processes kept " + std::to_string(t.energy.hosts_with_other_load) +
         " host(s) busy " + format("%.1f CPU-s", t.energy.other_cpu_s) +
         " beyond this job's ranks; the energy figure counts their load too (run alone for a "
         "figure of this job only)\n";
}

std::string energy_line(const RunTotals& t) {
  const double rate = t.completion > 0 ? t.client_bytes / 1e6 / t.completion : 0;
  const double watts = t.energy.watts;
  const int missing = t.energy.hosts_without_energy;
  const std::string without =
      missing > 0 ? ", " + std::to_string(missing) + " host(s) without energy left out" : "";
  // The rate counts what the clients handed over: after failed stores, not all of it is stored.
  const bool failed = t.storing.merged.counters.store_errors > 0;
  return "  energy " + format("%.1f J", t.energy.joules) + " (" + t.energy.source + ", " +
         t.energy.quality + (t.energy.calibration.empty() ? "" : ", " + t.energy.calibration) +
         without + "), average power " + format("%.1f W", watts) + "; I/O " +
         format("%.3f MB/s", rate) + ", " + format("%.5f MB/s/W", watts > 0 ? rate / watts : 0) +
         (failed ? " (handed over by the clients; not all of it stored: see NOT STORED)" : "") +
         "\n" + other_load_line(t);
}

// In-situ work (<pyscript>s, plugin actions) that failed: the stores ran before it, but its
// results (statistics, images) are missing for those iterations.
std::string insitu_line(const RunTotals& t) {
  std::string s;
  if (const double failures = statistic(t, Statistic::InsituFailures); failures > 0) {
    s += "  in situ: " + format("%.0f", failures) +
         " run(s) of in-situ work (<pyscript>, plugin actions, signal actions) failed: the data "
         "was stored, their results are missing for those iterations (the log and stderr say "
         "which, with the error)\n";
  }
  if (const double unbound = statistic(t, Statistic::InsituUnboundSignals); unbound > 0) {
    s += "  in situ: " + format("%.0f", unbound) +
         " signal(s) of events whose function was never found ran nothing (a Damaris file: "
         "logged, not a failure, as in Damaris; export the function or bind it with "
         "damaris_bind)\n";
  }
  return s;
}

// Data that did not reach the disk, said where a user reads first: failed stores, and blocks a
// full buffer dropped under policy="skip" (each was also said when it happened).
std::string loss_lines(const RunTotals& t) {
  std::string s;
  const double errors = t.storing.merged.counters.store_errors;
  const auto& failed = t.storing.merged.counters.failed;
  if (errors > 0 || failed.count > 0) {
    s += "  NOT STORED: " + format("%.0f", errors) + " store(s) failed in " +
         std::to_string(failed.count) + " (rank, iteration) pair(s), iterations " +
         std::to_string(failed.first) + " to " + std::to_string(failed.last) +
         ": what they were to store is not on disk, all of it or a part (the errors above say "
         "which and why)\n";
  }
  double skipped = 0;
  for (const auto& [key, value] : t.statistics) {
    if (key == Statistic::DcSkippedBlocks || key == Statistic::DnSkippedBlocks) skipped += value;
  }
  if (const double refused = statistic(t, Statistic::ClientRefusedWrites); refused > 0) {
    s += "  NOT HANDED OVER: " + format("%.0f", refused) +
         " write(s) refused with an error (a variable or block the configuration does not "
         "declare, a block too large for the room a client has, a second write of a block in "
         "one iteration, its server gone, ...): their data is not stored (the errors above "
         "say why)\n";
  }
  if (skipped > 0) {
    s += "  skipped: " + format("%.0f", skipped) +
         " block(s) dropped by policy=\"skip\" when the buffer was full: not stored, as "
         "configured (raise <buffer size>, or policy=\"block\" to keep them)\n";
  }
  if (const double unwanted = statistic(t, Statistic::ClientUnwantedWrites); unwanted > 0) {
    s += "  not stored, as configured: " + format("%.0f", unwanted) +
         " write(s) of blocks that no store takes at their iteration (a store's frequency, a "
         "variable that names no store) and nothing else reads: returned OK, nothing copied "
         "(client.unwanted_writes)\n";
  }
  return s;
}

// Set by `ecluse run`: the file to which rank 0 adds its report's path, so that the launcher
// prints the model's least-cost line itself, as the last line of the run.
const char* run_reports_file() {
  const char* file = std::getenv("ECLUSE_RUN_REPORTS");
  return file && *file ? file : nullptr;
}

// The same lock as the launcher's reader: several runs under one `ecluse run` may end together.
bool note_for_launcher(const char* file, const std::string& report) {
  std::FILE* f = std::fopen(file, "a");
  if (!f) return false;
  flock(fileno(f), LOCK_EX);
  std::error_code ignored;
  const auto absolute = std::filesystem::absolute(report, ignored);
  const std::string line = (absolute.empty() ? report : absolute.string()) + "\n";
  const bool ok = std::fputs(line.c_str(), f) >= 0;
  return std::fclose(f) == 0 && ok;
}

}  // namespace

bool note_report_for_launcher(const std::string& report) {
  const char* launcher = run_reports_file();
  return launcher == nullptr || note_for_launcher(launcher, report);
}

void keep_earlier_report_for_launcher(const std::string& report) {
  const char* launcher = run_reports_file();
  if (!launcher) return;
  std::error_code ignored;
  const auto absolute = std::filesystem::absolute(report, ignored);
  const std::string listed_as = absolute.empty() ? report : absolute.string();
  bool listed = false;
  if (std::FILE* f = std::fopen(launcher, "r")) {
    flock(fileno(f), LOCK_SH);
    char line[4096];
    while (!listed && std::fgets(line, sizeof line, f)) {
      std::string entry = line;
      if (!entry.empty() && entry.back() == '\n') entry.pop_back();
      listed = entry == listed_as;
    }
    std::fclose(f);
  }
  if (!listed) return;
  static int kept = 0;  // several runs of one program under one `ecluse run`
  const std::string copy = launcher_copy_path("earlier." + std::to_string(::getpid()) + "." +
                                              std::to_string(kept++) + ".json");
  std::filesystem::copy_file(report, copy, ignored);
  if (!ignored) note_for_launcher(launcher, copy);
}

std::string launcher_copy_path(const std::string& name) {
  const char* launcher = run_reports_file();
  return launcher ? std::string(launcher) + "." + name : std::string();
}

std::string least_cost_hint(const std::string& written) {
  if (written.empty()) {
    return "  least cost: not predicted: no report was written for the model to read (see "
           "<report file> or ECLUSE_REPORT)\n";
  }
  return "  least cost: run `ecluse advise --from-report " + written +
         "` for the model's answer (given here when launched with `ecluse run -- <command>`)\n";
}

std::string report_summary(const RunTotals& t, const std::vector<RankRecord>& records,
                           const std::string& file) {
  std::string s = "ecluse report (" + file + "):\n";
  s += loss_lines(t) + insitu_line(t) + roles_line(t) + writes_line(t) + waits_lines(t) +
       finalize_line(t) + cpu_line(t) + energy_line(t);
  std::size_t actions = 0;
  for (const RankRecord& r : records) actions += r.frequency.actions.size();
  if (actions > 0) s += "  frequency: " + std::to_string(actions) + " action(s), see the report\n";
  return s;
}

void publish_report(const Config& config, const std::vector<RankRecord>& records, int nodes,
                    int hosts, Log& log) {
  const RunTotals totals = aggregate(config, records, nodes, hosts);
  const std::string path = report_path(config);
  const std::string report = build_report(config, totals, records).dump() + "\n";
  bool written = false;
  if (!path.empty()) {
    written = write_file_whole(path, report);
    if (!written) {
      log.warning("the run report could not be written to " + path + ": " + std::strerror(errno) +
                  "; check the directory and its free space, or set ECLUSE_REPORT to another "
                  "file.");
    }
  }
  if (written && !note_report_for_launcher(path)) {
    log.warning("the report's path could not be passed to `ecluse run` through " +
                std::string(run_reports_file()) + "; run ecluse advise --from-report " + path);
  }
  // No report of its own (ECLUSE_REPORT=none, a directory that refused it): `ecluse run` would
  // read none and exit 0 whatever was lost. It gets a copy in its temporary directory instead.
  const std::string copy = written ? std::string()
                                   : launcher_copy_path(config.simulation + "-report." +
                                                        std::to_string(::getpid()) + ".json");
  if (!copy.empty() && !(write_file_whole(copy, report) && note_report_for_launcher(copy))) {
    log.warning("the run report could not be passed to `ecluse run` either (" + copy + ": " +
                std::strerror(errno) + "): its exit status does not count what was not stored");
  }
  const char* env = std::getenv("ECLUSE_REPORT");
  const bool silenced = env && std::string(env) == "none";
  if (!config.report.summary || silenced) return;
  std::string text = report_summary(totals, records, path.empty() ? "not written" : path);
  if (!run_reports_file() || !written) text += least_cost_hint(written ? path : "");
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

}  // namespace ecluse
