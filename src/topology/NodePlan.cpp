// Role assignment inside a node for dedicated cores.
#include "topology/NodePlan.hpp"

#include "ecluse/Error.hpp"

namespace ecluse {

NodePlan plan_dedicated_cores(int node, int local_size, int dedicated_cores,
                              ServerPlacement placement) {
  const int k = dedicated_cores;
  if (local_size <= k) {
    throw Error(ECLUSE_INIT_ERROR,
                "node " + std::to_string(node) + " has " + std::to_string(local_size) +
                    " rank(s) but <dedicated cores=\"" + std::to_string(k) +
                    "\"/> leaves none for the simulation; run at least " + std::to_string(k + 1) +
                    " ranks per node or lower the number of dedicated cores.");
  }
  if (local_size - k < k) {
    throw Error(ECLUSE_INIT_ERROR,
                "node " + std::to_string(node) + " has " + std::to_string(local_size - k) +
                    " simulation rank(s) for " + std::to_string(k) +
                    " dedicated cores; every dedicated core needs at least one client: run at "
                    "least " +
                    std::to_string(2 * k) +
                    " ranks per node or lower the number of "
                    "dedicated cores.");
  }
  NodePlan plan;
  plan.servers = k;
  plan.clients = local_size - k;
  const int first_server = placement == ServerPlacement::First ? 0 : local_size - k;
  int next_client = 0;
  for (int local = 0; local < local_size; ++local) {
    const bool server = local >= first_server && local < first_server + k;
    plan.roles.push_back(server ? Role::DedicatedCore : Role::Client);
    plan.client_index.push_back(server ? -1 : next_client);
    // Contiguous groups: client c goes to server floor(c * k / clients).
    plan.server_index.push_back(server ? local - first_server : next_client * k / plan.clients);
    if (!server) ++next_client;
  }
  return plan;
}

}  // namespace ecluse
