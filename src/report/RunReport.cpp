// Aggregation of the ranks' records into the run report and its summary.
#include "report/RunReport.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

namespace ecluse {

namespace {

// The first host's label, "mixed" once another differs; an empty label (a measured source's
// calibration) is a value of its own.
void merge_label(std::optional<std::string>& into, const std::string& value) {
  if (!into) into = value;
  if (*into != value) into = "mixed";
}

struct EnergyLabels {
  std::optional<std::string> source, quality, calibration;
};

// Hosts whose energy could not be read are counted apart, never summed as 0 J or labelled.
void label_totals(EnergyTotals& e, const EnergyLabels& labels) {
  e.source = labels.source.value_or("none");
  e.quality = labels.quality.value_or("none");
  e.calibration = labels.calibration.value_or("");
  if (e.hosts_without_energy > 0 && e.quality == "measured") e.quality = "measured-partial";
}

std::map<int, std::pair<double, double>> host_cpu_and_joules(
    const std::vector<RankRecord>& records) {
  std::map<int, std::pair<double, double>> hosts;  // host -> (cpu of its ranks, joules)
  for (const RankRecord& r : records) {
    hosts[r.totals.host].first += r.totals.cpu;
    if (r.energy) hosts[r.totals.host].second = r.energy->joules;
  }
  return hosts;
}

// Host leaders carry their host's energy; the figure is split among the host's ranks by CPU.
EnergyTotals host_energy(const std::vector<RankRecord>& records,
                         const std::map<int, std::pair<double, double>>& per_host) {
  EnergyTotals e;
  EnergyLabels labels;
  for (const RankRecord& r : records) {
    if (!r.energy) continue;
    HostEnergyFigure f = *r.energy;
    f.job_cpu_s = per_host.at(r.totals.host).first;
    e.hosts.push_back(f);
    if (has_other_load(f)) {
      ++e.hosts_with_other_load;
      e.other_cpu_s += other_cpu_seconds(f);
    }
    if (f.source == "none") {
      ++e.hosts_without_energy;
      continue;
    }
    e.joules += f.joules;
    (f.quality == "modelled" ? e.modelled_joules : e.measured_joules) += f.joules;
    if (f.seconds > 0) e.watts += f.joules / f.seconds;
    merge_label(labels.source, f.source);
    merge_label(labels.quality, f.quality);
    merge_label(labels.calibration, f.calibration);
  }
  label_totals(e, labels);
  return e;
}

void add_rank(RoleTotals& role, const RankRecord& r, double joules) {
  ++role.ranks;
  role.wall += r.totals.wall;
  role.cpu += r.totals.cpu;
  role.bytes += r.totals.bytes;
  role.finalize_wait += r.totals.finalize_wait;
  role.joules += joules;
  double phase_cpu = 0;
  for (const PhaseTime& p : r.totals.phases) phase_cpu += p.cpu;
  for (std::size_t i = 0; i < kPhaseCount; ++i) {
    role.phases[i].wall += r.totals.phases[i].wall;
    role.phases[i].cpu += r.totals.phases[i].cpu;
    const double share = phase_cpu > 0 ? r.totals.phases[i].cpu / phase_cpu : 0;
    role.phase_joules[i] += joules * share;
  }
}

void add_series(RoleSeries& role, const IterationSeries& rank) {
  role.merged.counters.merge(rank.counters);
  for (std::size_t i = 0; i < kSeriesCount; ++i) {
    role.merged.series[i].merge(rank.series[i]);
    if (rank.series[i].count() > 0) {
      role.slowest_mean[i] = std::max(role.slowest_mean[i], rank.series[i].mean());
    }
  }
}

}  // namespace

double other_cpu_seconds(const HostEnergyFigure& f) {
  return f.busy_cpu_s < 0 ? 0 : std::max(0.0, f.busy_cpu_s - f.job_cpu_s);
}

bool has_other_load(const HostEnergyFigure& f) {
  const double other = other_cpu_seconds(f);
  return other > kOtherLoadSeconds && other > kOtherLoadShare * f.busy_cpu_s;
}

RunTotals aggregate(const Config& config, const std::vector<RankRecord>& records, int nodes,
                    int hosts) {
  RunTotals t;
  t.approach = config.architecture.approach();
  t.ranks = static_cast<int>(records.size());
  t.nodes = nodes;
  t.hosts = hosts;
  const auto per_host = host_cpu_and_joules(records);
  t.energy = host_energy(records, per_host);
  for (const RankRecord& r : records) {
    const auto& [host_cpu, host_joules] = per_host.at(r.totals.host);
    const double share = host_cpu > 0 ? r.totals.cpu / host_cpu : 0;
    add_rank(of(t, r.totals.role), r, host_joules * share);
    t.completion = std::max(t.completion, r.totals.wall);
    if (r.totals.role == Role::Client) t.client_bytes += r.totals.bytes;
    add_series(t.series[index_of(r.totals.role)], r.series);
    if ((r.totals.role == Role::Client) == (t.approach == Approach::TP)) {
      add_series(t.storing, r.series);
    }
    for (const auto& [key, value] : r.statistics) {
      auto [it, fresh] = t.statistics.emplace(key, value);
      if (!fresh) it->second = combine(key, it->second, value);
    }
  }
  t.trace = trace_pattern(config);
  return t;
}

}  // namespace ecluse
