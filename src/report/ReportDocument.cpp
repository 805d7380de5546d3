// The report as a JSON document and as a short summary (schema in docs/report.md).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
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

struct Series {
  double bytes = 0, write_sum = 0, write_max = 0, store_sum = 0, store_max = 0, store_errors = 0;
  int writers = 0, stores = 0;
};

Json iterations_json(const RunTotals& t, const std::vector<RankRecord>& records) {
  std::map<int, Series> by_iteration;
  const bool tp = t.approach == Approach::TP;
  for (const RankRecord& r : records) {
    const bool client = r.totals.role == Role::Client;
    for (const IterationRecord& i : r.iterations) {
      Series& s = by_iteration[i.iteration];
      if (client) {
        s.bytes += i.bytes;
        s.write_sum += i.write_seconds;
        s.write_max = std::max(s.write_max, i.write_seconds);
        ++s.writers;
      }
      s.store_errors += i.store_errors;
      if (client == tp) {
        s.store_sum += i.store_seconds;
        s.store_max = std::max(s.store_max, i.store_seconds);
        ++s.stores;
      }
    }
  }
  Json out = Json::array();
  for (const auto& [iteration, s] : by_iteration) {
    Json i = Json::object();
    i["iteration"] = iteration;
    i["bytes"] = s.bytes;
    Json w = Json::object();
    w["mean"] = s.writers ? s.write_sum / s.writers : 0.0;
    w["max"] = s.write_max;
    i["client_write_s"] = std::move(w);
    Json st = Json::object();
    st["mean"] = s.stores ? s.store_sum / s.stores : 0.0;
    st["max"] = s.store_max;
    i["server_store_s"] = std::move(st);
    i["store_errors"] = s.store_errors;
    out.push_back(std::move(i));
  }
  return out;
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

Json frequency_json(const std::vector<RankRecord>& records) {
  Json f = Json::object();
  Json actions = Json::array();
  std::string policy, controller;
  for (const RankRecord& r : records) {
    const FrequencyRecord& rank = r.frequency;
    if (!rank.policy.empty()) policy = rank.policy;
    if (controller.empty()) controller = rank.controller;
    for (const std::string& action : rank.actions) {
      actions.push_back("rank " + std::to_string(r.totals.rank) + ": " + action);
    }
  }
  f["policy"] = policy.empty() ? Json() : Json(policy);
  f["controller"] = controller.empty() ? Json("none") : Json(controller);
  f["actions"] = std::move(actions);
  return f;
}

// Each counter combines over ranks as its key says (sum, maximum or minimum); by name order.
Json statistics_json(const std::vector<RankRecord>& records) {
  std::map<Statistic, double> stats;
  for (const RankRecord& r : records) {
    for (const auto& [key, value] : r.statistics) {
      auto [it, fresh] = stats.emplace(key, value);
      if (!fresh) it->second = combine(key, it->second, value);
    }
  }
  std::map<std::string_view, double> by_name;
  for (const auto& [key, value] : stats) by_name[info_of(key).name] = value;
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

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

}  // namespace

Json build_report(const Config& config, const RunTotals& t,
                  const std::vector<RankRecord>& records) {
  Json r = Json::object();
  r["schema"] = "ecluse-report/1";
  r["simulation"] = config.simulation;
  r["config"] = config.source;
  r["approach"] = std::string(name_of(t.approach));
  r["architecture"] = architecture_json(config);
  r["ranks"] = t.ranks;
  r["nodes"] = t.nodes;
  r["hosts"] = t.hosts;
  r["roles"] = roles_json(t);
  r["completion_time_s"] = t.completion;
  r["iterations"] = iterations_json(t, records);
  r["energy"] = energy_json(t);
  r["io"] = io_json(t);
  r["frequency"] = frequency_json(records);
  r["statistics"] = statistics_json(records);
  return r;
}

std::string report_summary(const RunTotals& t, const std::vector<RankRecord>& records,
                           const std::string& file) {
  std::string roles, cpu;
  for (const Role role_key : kRoles) {
    const RoleTotals& role = t.roles[index_of(role_key)];
    if (role.ranks == 0) continue;
    const std::string name(name_of(role_key));
    roles += std::string(roles.empty() ? "" : ", ") + name + " " + std::to_string(role.ranks);
    cpu += std::string(cpu.empty() ? "" : ", ") + name + " " +
           format("%.1f%%", role.wall > 0 ? 100 * role.cpu / role.wall : 0);
  }
  const double rate = t.completion > 0 ? t.client_bytes / 1e6 / t.completion : 0;
  std::string s = "ecluse report (" + file + "):\n";
  s += "  approach " + std::string(name_of(t.approach)) + ", " + std::to_string(t.ranks) +
       " ranks on " + std::to_string(t.nodes) + " node(s), " + std::to_string(t.hosts) +
       " host(s): " + roles + "\n";
  s += "  completion " + format("%.3f s", t.completion) + "; client write per iteration mean " +
       format("%.3f ms", t.mean_write * 1e3) + ", max " + format("%.3f ms", t.max_write * 1e3) +
       "\n";
  s += "  CPU usage: " + cpu + "\n";
  s += "  energy " + format("%.1f J", t.energy.joules) + " (" + t.energy.source + ", " +
       t.energy.quality + (t.energy.calibration.empty() ? "" : ", " + t.energy.calibration) +
       "), average power " + format("%.1f W", average_power(t)) + "; I/O " +
       format("%.3f MB/s", rate) + ", " +
       format("%.5f MB/s/W", average_power(t) > 0 ? rate / average_power(t) : 0) + "\n";
  std::size_t actions = 0;
  for (const RankRecord& r : records) actions += r.frequency.actions.size();
  if (actions > 0) s += "  frequency: " + std::to_string(actions) + " action(s), see the report\n";
  return s;
}

void publish_report(const Config& config, const std::vector<RankRecord>& records, int nodes,
                    int hosts, Log& log) {
  const RunTotals totals = aggregate(config, records, nodes, hosts);
  const std::string path = report_path(config);
  if (!path.empty()) {
    const std::string part = path + ".part";
    std::FILE* f = std::fopen(part.c_str(), "w");
    const std::string text = build_report(config, totals, records).dump() + "\n";
    const bool ok = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
    if (f && std::fclose(f) != 0) f = nullptr;
    if (!ok || !f || std::rename(part.c_str(), path.c_str()) != 0) {
      log.warning("the run report could not be written to " + path +
                  "; check the directory, or set ECLUSE_REPORT to another file.");
      std::remove(part.c_str());
    }
  }
  const char* env = std::getenv("ECLUSE_REPORT");
  const bool silenced = env && std::string(env) == "none";
  if (config.report.summary && !silenced) {
    std::fputs(report_summary(totals, records, path.empty() ? "not written" : path).c_str(),
               stdout);
    std::fflush(stdout);
  }
}

std::string report_path(const Config& config) {
  const char* env = std::getenv("ECLUSE_REPORT");
  std::string path = env && *env ? env : config.report.file;
  if (path == "none" || path.empty()) return "";
  const std::string key = "{simulation}";
  // Search after each replacement: a name that contains the key must not loop.
  for (auto at = path.find(key); at != std::string::npos;
       at = path.find(key, at + config.simulation.size())) {
    path.replace(at, key.size(), config.simulation);
  }
  return path;
}

}  // namespace ecluse
