// Role assignment inside a node for dedicated cores.
#include <gtest/gtest.h>

#include <map>

#include "ecluse/Error.hpp"
#include "topology/NodePlan.hpp"

namespace {

using ecluse::NodePlan;
using ecluse::plan_dedicated_cores;
using ecluse::Role;

std::map<int, int> clients_per_server(const NodePlan& plan) {
  std::map<int, int> count;
  for (std::size_t i = 0; i < plan.roles.size(); ++i) {
    if (plan.roles[i] == Role::Client) ++count[plan.server_index[i]];
  }
  return count;
}

TEST(NodePlan, LastRanksAreServersByDefault) {
  const NodePlan plan = plan_dedicated_cores(0, 4, 1, ecluse::ServerPlacement::Last);
  EXPECT_EQ(plan.roles,
            (std::vector<Role>{Role::Client, Role::Client, Role::Client, Role::DedicatedCore}));
  EXPECT_EQ(plan.client_index, (std::vector<int>{0, 1, 2, -1}));
  EXPECT_EQ(plan.server_index, (std::vector<int>{0, 0, 0, 0}));
  EXPECT_EQ(plan.clients, 3);
  EXPECT_EQ(plan.servers, 1);
}

TEST(NodePlan, FirstPlacement) {
  const NodePlan plan = plan_dedicated_cores(0, 5, 2, ecluse::ServerPlacement::First);
  EXPECT_EQ(plan.roles[0], Role::DedicatedCore);
  EXPECT_EQ(plan.roles[1], Role::DedicatedCore);
  EXPECT_EQ(plan.server_index[1], 1);
  EXPECT_EQ(plan.client_index, (std::vector<int>{-1, -1, 0, 1, 2}));
}

TEST(NodePlan, ClientsThatDoNotDivideAreSpreadEvenly) {
  for (int local = 3; local <= 40; ++local) {
    for (int k = 1; 2 * k <= local; ++k) {
      const auto count =
          clients_per_server(plan_dedicated_cores(0, local, k, ecluse::ServerPlacement::Last));
      ASSERT_EQ(static_cast<int>(count.size()), k) << local << " ranks, " << k << " cores";
      int low = local, high = 0;
      for (auto [server, n] : count) {
        low = std::min(low, n);
        high = std::max(high, n);
      }
      EXPECT_LE(high - low, 1) << local << " ranks, " << k << " cores";
    }
  }
  EXPECT_EQ(clients_per_server(plan_dedicated_cores(0, 7, 2, ecluse::ServerPlacement::Last)),
            (std::map<int, int>{{0, 3}, {1, 2}}));
}

TEST(NodePlan, TooFewRanksIsAClearError) {
  try {
    (void)plan_dedicated_cores(3, 3, 2, ecluse::ServerPlacement::Last);
    FAIL();
  } catch (const ecluse::Error& e) {
    EXPECT_EQ(e.status(), ECLUSE_INIT_ERROR);
    EXPECT_STREQ(e.what(),
                 "node 3 has 1 simulation rank(s) for 2 dedicated cores; every dedicated core "
                 "needs at least one client: run at least 4 ranks per node or lower the number "
                 "of dedicated cores.");
  }
}

}  // namespace
