// Aggregation of the ranks' records into the run report and its summary.
#include "report/RunReport.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

namespace ecluse {

namespace {
constexpr std::array<const char*, 3> kRoles = {"simulation", "dedicated-core", "dedicated-node"};

double label_number(const RankRecord& r, const std::string& key) {
  auto it = r.labels.find(key);
  return it == r.labels.end() ? 0.0 : std::strtod(it->second.c_str(), nullptr);
}

std::string label(const RankRecord& r, const std::string& key) {
  auto it = r.labels.find(key);
  return it == r.labels.end() ? "" : it->second;
}

std::string approach_of(const Config& config) {
  if (config.architecture.dedicated_cores > 0) return "dc";
  if (config.architecture.dedicated_nodes > 0) return "dn";
  return "tp";
}

void merge_label(std::string& into, const std::string& value) {
  if (into.empty()) into = value;
  if (into != value) into = "mixed";
}

// Host leaders carry their host's energy; the figure is split among the host's ranks by CPU.
EnergyTotals host_energy(const std::vector<RankRecord>& records) {
  EnergyTotals e;
  for (const RankRecord& r : records) {
    if (label(r, "energy.source").empty()) continue;
    e.joules += label_number(r, "energy.joules");
    const double seconds = label_number(r, "energy.seconds");
    if (seconds > 0) e.watts += label_number(r, "energy.joules") / seconds;
    merge_label(e.source, label(r, "energy.source"));
    merge_label(e.quality, label(r, "energy.quality"));
    merge_label(e.calibration, label(r, "energy.calibration"));
    Json h = Json::object();
    for (const char* k : {"host", "source", "quality", "calibration", "note"}) {
      h[k] = label(r, std::string("energy.") + k);
    }
    h["joules"] = label_number(r, "energy.joules");
    h["seconds"] = label_number(r, "energy.seconds");
    e.hosts.push_back(std::move(h));
  }
  return e;
}

std::map<int, std::pair<double, double>> host_cpu_and_joules(
    const std::vector<RankRecord>& records) {
  std::map<int, std::pair<double, double>> hosts;  // host -> (cpu of its ranks, joules)
  for (const RankRecord& r : records) {
    hosts[r.totals.host].first += r.totals.cpu;
    if (!label(r, "energy.source").empty()) {
      hosts[r.totals.host].second = label_number(r, "energy.joules");
    }
  }
  return hosts;
}

void add_rank(RoleTotals& role, const RankRecord& r, double joules) {
  ++role.ranks;
  role.wall += r.totals.wall;
  role.cpu += r.totals.cpu;
  role.bytes += r.totals.bytes;
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

void add_writes(RunTotals& t, const std::vector<RankRecord>& records) {
  double sum = 0;
  int count = 0;
  for (const RankRecord& r : records) {
    if (r.totals.role != 0) continue;
    for (const IterationRecord& i : r.iterations) {
      sum += i.write_seconds;
      ++count;
      t.max_write = std::max(t.max_write, i.write_seconds);
    }
  }
  t.mean_write = count > 0 ? sum / count : 0;
}
}  // namespace

const char* role_name(int role) {
  return kRoles.at(static_cast<std::size_t>(role));
}

RunTotals aggregate(const Config& config, const std::vector<RankRecord>& records, int nodes,
                    int hosts) {
  RunTotals t;
  t.approach = approach_of(config);
  t.ranks = static_cast<int>(records.size());
  t.nodes = nodes;
  t.hosts = hosts;
  t.energy = host_energy(records);
  const auto per_host = host_cpu_and_joules(records);
  for (const RankRecord& r : records) {
    const auto& [host_cpu, host_joules] = per_host.at(r.totals.host);
    const double share = host_cpu > 0 ? r.totals.cpu / host_cpu : 0;
    add_rank(t.roles.at(static_cast<std::size_t>(r.totals.role)), r, host_joules * share);
    t.completion = std::max(t.completion, r.totals.wall);
    if (r.totals.role == 0) t.client_bytes += r.totals.bytes;
  }
  add_writes(t, records);
  return t;
}

}  // namespace ecluse
