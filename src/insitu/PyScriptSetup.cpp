// The start-up JSON of the embedded runtime: the same on every writer but for its rank.
#include "insitu/PyScriptSetup.hpp"

#include <cstdio>
#include <vector>

#include "core/JsonEscape.hpp"
#include "topology/ServedClients.hpp"

namespace ecluse {
namespace {

std::string field(const std::string& key, const std::string& json_value) {
  return json_escape(key) + ": " + json_value;
}

std::string boolean(bool value) {
  return value ? "true" : "false";
}

std::string object(const std::vector<std::string>& fields) {
  std::string out = "{";
  for (std::size_t i = 0; i < fields.size(); ++i) out += (i ? ", " : "") + fields[i];
  return out + "}";
}

// A variable that is not time-varying is given to the script at iteration 0 only (Damaris).
std::string variables_of(const Config& config, const std::string& script) {
  std::string out = "[";
  for (const Variable& v : config.variables) {
    for (const std::string& name : v.scripts) {
      if (name != script) continue;
      out +=
          (out.size() > 1 ? ", " : "") + object({field("name", json_escape(v.name)),
                                                 field("time_varying", boolean(v.time_varying))});
    }
  }
  return out + "]";
}

std::string integers(const std::vector<int>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(values[i]);
  }
  return out + "]";
}

std::string scripts_of(const Config& config) {
  std::string out = "[";
  for (const PyScript& s : config.scripts) {
    out += (out.size() > 1 ? ", " : "") +
           object({field("name", json_escape(s.name)), field("file", json_escape(s.file)),
                   field("frequency", std::to_string(s.frequency)),
                   field("variables", variables_of(config, s.name))});
  }
  return out + "]";
}

// Servers and clients per node as Damaris reports them (dedicated nodes: all ranks of a node).
std::pair<int, int> per_node(const InSituContext& c) {
  switch (c.config.architecture.approach()) {
    case Approach::DC:
      return {c.topology.plan().servers, c.topology.plan().clients};
    case Approach::DN:
      return {c.topology.local_size(), c.topology.local_size()};
    case Approach::TP:
      break;
  }
  return {0, c.topology.local_size()};
}

std::string damaris_env(const InSituContext& c) {
  const Approach approach = c.config.architecture.approach();
  const auto [servers, clients] = per_node(c);
  return object({field("is_dedicated_core", boolean(approach == Approach::DC)),
                 field("is_dedicated_node", boolean(approach == Approach::DN)),
                 field("servers_per_node", std::to_string(servers)),
                 field("clients_per_node", std::to_string(clients)),
                 field("ranks_per_node", std::to_string(c.topology.local_size())),
                 field("cores_per_node", std::to_string(c.topology.local_size())),
                 field("number_of_nodes", std::to_string(c.topology.node_count())),
                 field("simulation_name", json_escape(c.config.simulation)),
                 field("simulation_magic_number", json_escape(c.job))});
}

const PyScript* dask_script(const Config& config) {
  for (const PyScript& s : config.scripts) {
    if (!s.scheduler_file.empty()) return &s;
  }
  return nullptr;
}

std::string dask(const InSituContext& c) {
  const PyScript* s = dask_script(c.config);
  if (!s) return object({field("scheduler_file", json_escape(""))});
  return object({field("scheduler_file", json_escape(s->scheduler_file)),
                 field("nthreads", std::to_string(s->nthreads)),
                 field("keep_workers", boolean(s->keep_workers)),
                 field("timeout", std::to_string(s->timeout_seconds)),
                 field("workers_name", json_escape(c.config.simulation + "-" + c.job))});
}

}  // namespace

std::string pyscript_setup(const InSituContext& context) {
  int rank = 0, size = 1;
  MPI_Comm_rank(context.writers, &rank);
  MPI_Comm_size(context.writers, &size);
  return object({field("rank", std::to_string(rank)), field("size", std::to_string(size)),
                 field("clients", integers(served_clients(context.topology))),
                 field("scripts", scripts_of(context.config)),
                 field("damaris_env", damaris_env(context)), field("dask", dask(context))});
}

}  // namespace ecluse
