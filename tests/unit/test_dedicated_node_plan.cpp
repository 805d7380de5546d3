// Assignment of client nodes to dedicated nodes and of client ranks to server ranks.
#include <gtest/gtest.h>

#include <map>

#include "ecluse/Error.hpp"
#include "topology/DedicatedNodePlan.hpp"

namespace {

using ecluse::DedicatedNodePlan;
using ecluse::plan_dedicated_nodes;

// node_of for `nodes` nodes of `per_node` consecutive ranks each.
std::vector<int> uniform(int nodes, int per_node) {
  std::vector<int> node_of;
  for (int n = 0; n < nodes; ++n) node_of.insert(node_of.end(), per_node, n);
  return node_of;
}

std::string message_of(const std::vector<int>& node_of, int dedicated) {
  try {
    plan_dedicated_nodes(node_of, dedicated, ecluse::ServerPlacement::Last);
  } catch (const ecluse::Error& e) {
    EXPECT_EQ(e.status(), ECLUSE_INIT_ERROR);
    return e.what();
  }
  return "no error";
}

TEST(DedicatedNodePlan, LastNodeServesTheOthersByNodeThenRank) {
  const DedicatedNodePlan plan =
      plan_dedicated_nodes(uniform(4, 2), 1, ecluse::ServerPlacement::Last);
  EXPECT_EQ(plan.dedicated, (std::vector<bool>{false, false, false, true}));
  EXPECT_EQ(plan.server_of, (std::vector<int>{6, 6, 6, 7, 7, 7, -1, -1}));
  EXPECT_EQ(plan.client_index, (std::vector<int>{0, 1, 2, 0, 1, 2, -1, -1}));
  EXPECT_EQ(plan.client_count, (std::vector<int>{0, 0, 0, 0, 0, 0, 3, 3}));
  EXPECT_EQ(plan.served_node, (std::vector<int>{3, 3, 3, -1}));
}

TEST(DedicatedNodePlan, FirstPlacement) {
  const DedicatedNodePlan plan =
      plan_dedicated_nodes(uniform(3, 1), 1, ecluse::ServerPlacement::First);
  EXPECT_EQ(plan.dedicated, (std::vector<bool>{true, false, false}));
  EXPECT_EQ(plan.server_of, (std::vector<int>{-1, 0, 0}));
  EXPECT_EQ(plan.client_count[0], 2);
}

TEST(DedicatedNodePlan, ThirteenClientNodesOverTwoDedicatedNodes) {
  const DedicatedNodePlan plan =
      plan_dedicated_nodes(uniform(15, 1), 2, ecluse::ServerPlacement::Last);
  std::map<int, int> nodes_per_server;
  for (int node = 0; node < 13; ++node) ++nodes_per_server[plan.served_node[node]];
  // 13 = 7 + 6, contiguous: nodes 0-6 to node 13, nodes 7-12 to node 14.
  EXPECT_EQ(nodes_per_server, (std::map<int, int>{{13, 7}, {14, 6}}));
  EXPECT_EQ(plan.served_node[6], 13);
  EXPECT_EQ(plan.served_node[7], 14);
  EXPECT_EQ(plan.client_count[13], 7);
  EXPECT_EQ(plan.client_count[14], 6);
}

TEST(DedicatedNodePlan, UnequalNodesAreSplitByNodeNotByRankCount) {
  // Nodes of 3, 1, 2 ranks, then a dedicated node of 2 ranks: the 6 clients in (node, rank)
  // order go 3 to each server, whatever the node sizes.
  const std::vector<int> node_of{0, 0, 0, 1, 2, 2, 3, 3};
  const DedicatedNodePlan plan = plan_dedicated_nodes(node_of, 1, ecluse::ServerPlacement::Last);
  EXPECT_EQ(plan.server_of, (std::vector<int>{6, 6, 6, 7, 7, 7, -1, -1}));
  EXPECT_EQ(plan.client_count[6], 3);
  EXPECT_EQ(plan.client_count[7], 3);
}

TEST(DedicatedNodePlan, TwoDedicatedNodesOfTwoRanksWithRatiosThatDoNotDivide) {
  // 5 client nodes of 2 ranks: 3 nodes (6 ranks) to the first dedicated node, 2 (4 ranks) to
  // the second; each server rank gets half of its node's clients.
  const DedicatedNodePlan plan =
      plan_dedicated_nodes(uniform(7, 2), 2, ecluse::ServerPlacement::Last);
  EXPECT_EQ(plan.served_node, (std::vector<int>{5, 5, 5, 6, 6, -1, -1}));
  EXPECT_EQ(plan.client_count[10], 3);
  EXPECT_EQ(plan.client_count[11], 3);
  EXPECT_EQ(plan.client_count[12], 2);
  EXPECT_EQ(plan.client_count[13], 2);
  EXPECT_EQ(plan.server_of[5], 11);
  EXPECT_EQ(plan.server_of[6], 12);
}

TEST(DedicatedNodePlan, TooFewNodes) {
  EXPECT_EQ(message_of(uniform(3, 1), 2),
            "<dedicated nodes=\"2\"/> needs at least 4 nodes (one simulation node per dedicated "
            "node) but the run has 3; start more ranks, set <virtual-nodes ranks-per-node> "
            "lower, or use fewer dedicated nodes.");
  EXPECT_EQ(message_of(uniform(1, 4), 1),
            "<dedicated nodes=\"1\"/> needs at least 2 nodes (one simulation node per dedicated "
            "node) but the run has 1; start more ranks, set <virtual-nodes ranks-per-node> "
            "lower, or use fewer dedicated nodes.");
}

TEST(DedicatedNodePlan, ReceiveMemoryIsTheNodesBufferSplitOverItsRanksThenTheirClients) {
  // 4 nodes of 2 ranks, the last dedicated: its ranks 6 and 7 serve 3 clients each.
  const DedicatedNodePlan plan =
      plan_dedicated_nodes(uniform(4, 2), 1, ecluse::ServerPlacement::Last);
  ASSERT_EQ(plan.client_count[6], 3);
  EXPECT_EQ(ecluse::receive_memory(plan, 64ull << 20, 6), 32ull << 20);
  EXPECT_EQ(ecluse::receive_memory(plan, 64ull << 20, 7), 32ull << 20);
  EXPECT_EQ(ecluse::client_window(plan, 64ull << 20, 6), 11184810u);  // 32 MiB / 3, rounded down
}

TEST(DedicatedNodePlan, ServerRankWithoutClient) {
  EXPECT_EQ(message_of({0, 1, 1, 1}, 1),
            "dedicated node 1 has 3 ranks but serves only 1 simulation rank(s); every server "
            "rank needs a client: use fewer ranks per node or fewer dedicated nodes.");
}

}  // namespace
