// The report as a JSON document (schema in docs/report.md).
#include <algorithm>
#include <cmath>
#include <map>

#include "report/RunReport.hpp"

namespace ecluse {

namespace {

Json phases_json(const RoleTotals& role, bool client) {
  Json phases = Json::object();
  for (std::size_t i = 0; i < kPhaseCount; ++i) {
    const bool mine =
        client ? (i <= 3 || i == static_cast<std::size_t>(Phase::Store)) : (i == 0 || i >= 4);
    if (!mine && role.phases[i].wall == 0) continue;
    Json p = Json::object();
    p["wall_s"] = role.phases[i].wall;
    p["cpu_s"] = role.phases[i].cpu;
    phases[std::string(kPhaseNames[i])] = std::move(p);
  }
  return phases;
}

Json role_json(const RoleTotals& role, bool client) {
  Json r = Json::object();
  r["ranks"] = role.ranks;
  r["wall_s"] = role.wall;
  r["cpu_s"] = role.cpu;
  r["cpu_usage_percent"] = role.wall > 0 ? 100 * role.cpu / role.wall : 0.0;
  r["bytes"] = role.bytes;
  if (client) r["finalize_wait_s"] = role.finalize_wait;
  r["phases"] = phases_json(role, client);
  return r;
}

Json roles_json(const RunTotals& t) {
  Json roles = Json::object();
  for (const Role role : kRoles) {
    const RoleTotals& totals = t.roles[index_of(role)];
    if (totals.ranks > 0)
      roles[std::string(name_of(role))] = role_json(totals, role == Role::Client);
  }
  return roles;
}

Json or_null(std::int64_t value) {
  return value < 0 ? Json() : Json(value);
}

Json span_json(const IterationSpan& span) {
  return Json::object()
      .set("count", span.count)
      .set("first", or_null(span.first))
      .set("last", or_null(span.last));
}

// count and sum, then (with samples) the moments, the quantiles and the slowest rank's mean.
Json distribution_json(const RoleSeries& role, Series which) {
  const Distribution& d = role.merged.of(which);
  Json j = Json::object().set("count", d.count()).set("sum", d.sum());
  const bool any = d.count() > 0;
  const auto figure = [any](double value) { return any ? Json(value) : Json(); };
  j.set("mean", figure(d.mean())).set("stddev", figure(std::sqrt(d.variance())));
  j.set("min", figure(d.min())).set("max", figure(d.max()));
  j.set("p50", figure(d.quantile(0.5))).set("p90", figure(d.quantile(0.9)));
  j.set("p99", figure(d.quantile(0.99)));
  return j.set("slowest_rank_mean", figure(role.slowest_mean[static_cast<std::size_t>(which)]));
}

Json outputs_json(const SeriesCounters& c) {
  Json j = span_json(c.outputs);
  j.set("every", c.min_gap > 0 ? Json(c.min_gap) : Json());
  return j.set("every_max", c.max_gap > 0 ? Json(c.max_gap) : Json());
}

Json iterations_json(const RunTotals& t) {
  const RoleSeries& clients = t.series[index_of(Role::Client)];
  const SeriesCounters& c = clients.merged.counters;
  Json j = span_json(c.ended);
  j.set("outputs", outputs_json(c));
  j.set("client_write_s", distribution_json(clients, Series::Write));
  j.set("client_quiet_s", distribution_json(clients, Series::Quiet));
  j.set("client_bytes", distribution_json(clients, Series::Bytes));
  j.set("server_store_s", distribution_json(t.storing, Series::Store));
  j.set("server_store_empty_s", distribution_json(t.storing, Series::StoreEmpty));
  j.set("store_errors", t.storing.merged.counters.store_errors);
  return j.set("failed_iterations", span_json(t.storing.merged.counters.failed));
}

Json trace_json(const RunTotals& t) {
  if (t.trace.empty()) return Json();
  return Json::object().set("files", t.trace).set("ranks", t.ranks).set("format", "ecluse-trace/1");
}

Json hosts_json(const std::vector<HostEnergyFigure>& hosts) {
  Json out = Json::array();
  for (const HostEnergyFigure& f : hosts) {
    Json h = Json::object();
    h["host"] = f.host;
    h["source"] = f.source;
    h["quality"] = f.quality;
    h["calibration"] = f.calibration;
    h["note"] = f.note;
    h["joules"] = f.joules;
    h["seconds"] = f.seconds;
    h["busy_cpu_s"] = f.busy_cpu_s < 0 ? Json() : Json(f.busy_cpu_s);
    h["job_cpu_s"] = f.job_cpu_s;
    h["other_cpu_s"] = other_cpu_seconds(f);
    h["other_load"] = has_other_load(f);
    out.push_back(std::move(h));
  }
  return out;
}

double average_power(const RunTotals& t) {
  return t.energy.watts;
}

Json energy_json(const RunTotals& t) {
  Json e = Json::object();
  e["source"] = t.energy.source;
  e["quality"] = t.energy.quality;
  e["calibration"] = t.energy.calibration;
  e["joules"] = t.energy.joules;
  e["measured_joules"] = t.energy.measured_joules;
  e["modelled_joules"] = t.energy.modelled_joules;
  e["hosts_without_energy"] = t.energy.hosts_without_energy;
  e["hosts_with_other_load"] = t.energy.hosts_with_other_load;
  e["other_cpu_s"] = t.energy.other_cpu_s;
  e["average_power_w"] = average_power(t);
  e["hosts"] = hosts_json(t.energy.hosts);
  Json by_role = Json::object();
  for (const Role role_key : kRoles) {
    const RoleTotals& role = t.roles[index_of(role_key)];
    if (role.ranks == 0) continue;
    Json r = Json::object();
    r["joules"] = role.joules;
    r["label"] = "apportioned by CPU time";
    Json phases = Json::object();
    for (std::size_t p = 0; p < kPhaseCount; ++p) {
      if (role.phase_joules[p] > 0) phases[std::string(kPhaseNames[p])] = role.phase_joules[p];
    }
    r["phases"] = std::move(phases);
    by_role[std::string(name_of(role_key))] = std::move(r);
  }
  e["by_role"] = std::move(by_role);
  return e;
}

Json io_json(const RunTotals& t) {
  Json io = Json::object();
  const double rate = t.completion > 0 ? t.client_bytes / 1e6 / t.completion : 0;
  io["bytes"] = t.client_bytes;
  io["rate_mb_s"] = rate;
  io["rate_mb_s_per_w"] = average_power(t) > 0 ? rate / average_power(t) : 0.0;
  return io;
}

// Each distinct controller with the ranks that have it: ranks of one run may differ (one host's
// dedicated core lowered, another's refused for a shared cpufreq policy, with its reason).
Json controllers_json(const std::vector<RankRecord>& records) {
  std::vector<std::pair<std::string, Json>> seen;
  for (const RankRecord& r : records) {
    if (r.frequency.controller.empty()) continue;
    auto at = std::find_if(seen.begin(), seen.end(),
                           [&](const auto& s) { return s.first == r.frequency.controller; });
    if (at == seen.end()) at = seen.insert(seen.end(), {r.frequency.controller, Json::array()});
    at->second.push_back(r.totals.rank);
  }
  Json out = Json::array();
  for (auto& [controller, ranks] : seen) {
    Json c = Json::object();
    c["controller"] = controller;
    c["ranks"] = std::move(ranks);
    out.push_back(std::move(c));
  }
  return out;
}

// Every role's policy (one per role at most), in rank order; "policy" joins them.
Json frequency_json(const std::vector<RankRecord>& records) {
  Json f = Json::object();
  Json actions = Json::array();
  std::vector<std::string> policies;
  std::string controller;
  for (const RankRecord& r : records) {
    const FrequencyRecord& rank = r.frequency;
    if (!rank.policy.empty() &&
        std::find(policies.begin(), policies.end(), rank.policy) == policies.end()) {
      policies.push_back(rank.policy);
    }
    if (controller.empty()) controller = rank.controller;
    for (const std::string& action : rank.actions) {
      actions.push_back("rank " + std::to_string(r.totals.rank) + ": " + action);
    }
  }
  std::string policy;
  Json listed = Json::array();
  for (const std::string& p : policies) {
    policy += (policy.empty() ? "" : "; ") + p;
    listed.push_back(p);
  }
  f["policy"] = policy.empty() ? Json() : Json(policy);
  f["policies"] = std::move(listed);
  f["controller"] = controller.empty() ? Json("none") : Json(controller);
  f["controllers"] = controllers_json(records);
  f["actions"] = std::move(actions);
  return f;
}

// The counters combined over ranks (RunTotals::statistics), by name order.
Json statistics_json(const RunTotals& totals) {
  std::map<std::string_view, double> by_name;
  for (const auto& [key, value] : totals.statistics) by_name[info_of(key).name] = value;
  Json out = Json::object();
  for (const auto& [name, value] : by_name) out[std::string(name)] = value;
  return out;
}

Json architecture_json(const Config& config) {
  const Architecture& a = config.architecture;
  Json j = Json::object();
  j["dedicated_cores"] = a.dedicated_cores;
  j["dedicated_nodes"] = a.dedicated_nodes;
  j["ranks_per_node"] = a.ranks_per_node;
  j["buffer_bytes"] = a.buffer_size;
  j["domains"] = a.domains;
  return j;
}

}  // namespace

Json build_report(const Config& config, const RunTotals& t,
                  const std::vector<RankRecord>& records) {
  Json r = Json::object();
  r["schema"] = "ecluse-report/2";
  r["simulation"] = config.simulation;
  r["config"] = config.source;
  r["approach"] = std::string(name_of(t.approach));
  r["complete"] = true;
  r["architecture"] = architecture_json(config);
  r["ranks"] = t.ranks;
  r["nodes"] = t.nodes;
  r["hosts"] = t.hosts;
  r["roles"] = roles_json(t);
  r["completion_time_s"] = t.completion;
  r["iterations"] = iterations_json(t);
  r["energy"] = energy_json(t);
  r["io"] = io_json(t);
  r["frequency"] = frequency_json(records);
  r["statistics"] = statistics_json(t);
  r["trace"] = trace_json(t);
  return r;
}

}  // namespace ecluse
