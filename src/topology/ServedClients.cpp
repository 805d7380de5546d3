// A writer's clients from the placement (dedicated cores, dedicated nodes) or itself (TP).
#include "topology/ServedClients.hpp"

namespace ecluse {
namespace {

std::vector<int> dedicated_core_clients(const Topology& topology) {
  const NodePlan& plan = topology.plan();
  const auto local = static_cast<std::size_t>(topology.local_rank());
  std::vector<int> ranks;
  for (const int index : plan.clients_of(plan.server_index[local])) {
    ranks.push_back(topology.node_client_ranks()[static_cast<std::size_t>(index)]);
  }
  return ranks;
}

// The clients' communicator orders the clients as world does (split by world rank).
std::vector<int> dedicated_node_clients(const Topology& topology) {
  const std::vector<int>& server_of = topology.node_plan().server_of;
  std::vector<int> ranks;
  int client_rank = 0;
  for (const int server : server_of) {
    if (server < 0) continue;  // a server rank
    if (server == topology.world_rank()) ranks.push_back(client_rank);
    ++client_rank;
  }
  return ranks;
}

}  // namespace

std::vector<int> served_clients(const Topology& topology) {
  switch (topology.role()) {
    case Role::DedicatedCore:
      return dedicated_core_clients(topology);
    case Role::DedicatedNode:
      return dedicated_node_clients(topology);
    case Role::Client:
      break;
  }
  int rank = 0;
  MPI_Comm_rank(topology.clients(), &rank);
  return {rank};
}

}  // namespace ecluse
