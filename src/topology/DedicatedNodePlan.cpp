// Assignment of client nodes to dedicated nodes, and of client ranks to server ranks.
#include "topology/DedicatedNodePlan.hpp"

#include <algorithm>

#include "ecluse/Error.hpp"

namespace ecluse {
namespace {

std::vector<std::vector<int>> ranks_by_node(const std::vector<int>& node_of) {
  const int nodes = node_of.empty() ? 0 : *std::max_element(node_of.begin(), node_of.end()) + 1;
  std::vector<std::vector<int>> ranks(static_cast<std::size_t>(nodes));
  for (std::size_t r = 0; r < node_of.size(); ++r) {
    ranks[static_cast<std::size_t>(node_of[r])].push_back(static_cast<int>(r));
  }
  return ranks;
}

void check_counts(int nodes, int dedicated, const SourceLocation& where) {
  if (dedicated < nodes && nodes - dedicated >= dedicated) return;
  throw Error(ECLUSE_INIT_ERROR,
              place_prefix(where) + "<dedicated nodes=\"" + std::to_string(dedicated) +
                  "\"/> needs at least " + std::to_string(2 * dedicated) +
                  " nodes (one simulation node per dedicated node) "
                  "but the run has " +
                  std::to_string(nodes) +
                  "; start more ranks, set <virtual-nodes ranks-per-node> lower, or use fewer "
                  "dedicated nodes.");
}

void check_servers(int node, std::size_t servers, std::size_t clients,
                   const SourceLocation& where) {
  if (clients >= servers) return;
  throw Error(ECLUSE_INIT_ERROR,
              place_prefix(where) + "dedicated node " + std::to_string(node) + " has " +
                  std::to_string(servers) + " ranks but serves only " + std::to_string(clients) +
                  " simulation rank(s); every server rank needs a client: use fewer ranks per "
                  "node or fewer dedicated nodes.");
}

// Servers of one dedicated node: its client ranks in (node, rank) order, split contiguously.
void assign(DedicatedNodePlan& plan, const std::vector<int>& servers,
            const std::vector<int>& clients) {
  const std::size_t s = servers.size(), m = clients.size();
  for (std::size_t i = 0; i < m; ++i) {
    const int server = servers[i * s / m];
    const auto client = static_cast<std::size_t>(clients[i]);
    plan.server_of[client] = server;
    plan.client_index[client] = plan.client_count[static_cast<std::size_t>(server)]++;
  }
}

}  // namespace

DedicatedNodePlan plan_dedicated_nodes(const std::vector<int>& node_of, int dedicated,
                                       ServerPlacement placement, const SourceLocation& where) {
  const auto ranks = ranks_by_node(node_of);
  const int nodes = static_cast<int>(ranks.size());
  check_counts(nodes, dedicated, where);
  DedicatedNodePlan plan;
  plan.node_of = node_of;
  plan.dedicated.assign(ranks.size(), false);
  plan.served_node.assign(ranks.size(), -1);
  for (const auto& node_ranks : ranks)
    plan.node_size.push_back(static_cast<int>(node_ranks.size()));
  plan.server_of.assign(node_of.size(), -1);
  plan.client_index.assign(node_of.size(), -1);
  plan.client_count.assign(node_of.size(), 0);
  const int first_server = placement == ServerPlacement::First ? 0 : nodes - dedicated;
  std::vector<std::vector<int>> clients(static_cast<std::size_t>(dedicated));
  for (int node = 0, j = 0; node < nodes; ++node) {
    const bool server = node >= first_server && node < first_server + dedicated;
    plan.dedicated[static_cast<std::size_t>(node)] = server;
    if (server) continue;
    const int d = j++ * dedicated / (nodes - dedicated);
    plan.served_node[static_cast<std::size_t>(node)] = first_server + d;
    const auto& node_ranks = ranks[static_cast<std::size_t>(node)];
    auto& group = clients[static_cast<std::size_t>(d)];
    group.insert(group.end(), node_ranks.begin(), node_ranks.end());
  }
  for (int d = 0; d < dedicated; ++d) {
    const auto& servers = ranks[static_cast<std::size_t>(first_server + d)];
    check_servers(first_server + d, servers.size(), clients[static_cast<std::size_t>(d)].size(),
                  where);
    assign(plan, servers, clients[static_cast<std::size_t>(d)]);
  }
  return plan;
}

std::uint64_t receive_memory(const DedicatedNodePlan& plan, std::uint64_t buffer_size, int server) {
  const int node = plan.node_of[static_cast<std::size_t>(server)];
  return buffer_size / static_cast<std::uint64_t>(plan.node_size[static_cast<std::size_t>(node)]);
}

std::uint64_t client_window(const DedicatedNodePlan& plan, std::uint64_t buffer_size, int server) {
  return receive_memory(plan, buffer_size, server) /
         static_cast<std::uint64_t>(plan.client_count[static_cast<std::size_t>(server)]);
}

}  // namespace ecluse
