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

std::vector<int> servers_of(const NodePlan& plan) {
  std::vector<int> servers;
  for (std::size_t i = 0; i < plan.roles.size(); ++i) {
    if (plan.roles[i] == Role::DedicatedCore) servers.push_back(static_cast<int>(i));
  }
  return servers;
}

ecluse::CorePlacement pattern(int start, int step, int blocksize) {
  ecluse::CorePlacement p;
  p.start = start;
  p.step = step;
  p.blocksize = blocksize;
  p.pattern = true;
  return p;
}

// Damaris's placement test files: 8 cores on 16 ranks, blocks of 2 every 4 ranks from rank 1
// ("0110011001100110"); 4 cores every 4 ranks from 0; the mask "100100" repeated.
TEST(NodePlan, PlacementPatternPicksBlocksOfRanks) {
  const auto last = ecluse::ServerPlacement::Last;
  EXPECT_EQ(servers_of(plan_dedicated_cores(0, 16, 8, last, pattern(1, 4, 2))),
            (std::vector<int>{1, 2, 5, 6, 9, 10, 13, 14}));
  EXPECT_EQ(servers_of(plan_dedicated_cores(0, 16, 4, last, pattern(0, 4, 1))),
            (std::vector<int>{0, 4, 8, 12}));
  EXPECT_EQ(servers_of(plan_dedicated_cores(0, 8, 2, last, pattern(3, 0, 0))),
            (std::vector<int>{3, 4}));  // one block of 2 from rank 3
  ecluse::CorePlacement mask;
  mask.mask = "100100";
  const NodePlan plan = plan_dedicated_cores(0, 12, 4, last, mask);
  EXPECT_EQ(servers_of(plan), (std::vector<int>{0, 3, 6, 9}));
  // Clients in local-rank order, two per server, each server numbered by its rank's order.
  EXPECT_EQ(plan.server_index, (std::vector<int>{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3}));
  EXPECT_EQ(plan.client_index, (std::vector<int>{-1, 0, 1, -1, 2, 3, -1, 4, 5, -1, 6, 7}));
  EXPECT_EQ(clients_per_server(plan), (std::map<int, int>{{0, 2}, {1, 2}, {2, 2}, {3, 2}}));
}

TEST(NodePlan, PlacementThatDoesNotFitIsAClearError) {
  const auto last = ecluse::ServerPlacement::Last;
  const auto message = [&](int local, int k, const ecluse::CorePlacement& p) {
    try {
      (void)plan_dedicated_cores(2, local, k, last, p);
    } catch (const ecluse::Error& e) {
      EXPECT_EQ(e.status(), ECLUSE_INIT_ERROR);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(8, 4, pattern(3, 4, 2)),
            "node 2 has 8 ranks but <placement start=\"3\" step=\"4\" blocksize=\"2\"> puts "
            "dedicated core 4 of 4 at local rank 8; run more ranks per node or change the "
            "placement.");
  EXPECT_EQ(message(16, 4, pattern(0, 1, 2)),
            "<placement start=\"0\" step=\"1\" blocksize=\"2\"> makes blocks of dedicated cores "
            "overlap; give a step of at least the blocksize.");
  ecluse::CorePlacement mask;
  mask.mask = "0001";
  EXPECT_EQ(message(6, 3, mask),
            "node 2: <placement mask=\"0001\"> marks 1 of its 6 ranks as dedicated cores, but "
            "<dedicated cores=\"3\"/> needs 3; put a 1 for each dedicated core.");
}

// Placement errors start with the place of <dedicated> (no room) or <placement> (its mask or
// pattern), as every other configuration error does.
TEST(NodePlan, PlacementErrorsStartWithTheirPlaceInTheFile) {
  ecluse::CorePlacement cores;
  cores.dedicated_where = {"p.xml", 5, 5};
  cores.where = {"p.xml", 6, 5};
  const auto message = [&](int local, int k) {
    try {
      (void)plan_dedicated_cores(0, local, k, ecluse::ServerPlacement::Last, cores);
    } catch (const ecluse::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(2, 2),
            "p.xml:5:5: node 0 has 2 rank(s) but <dedicated cores=\"2\"/> leaves none for the "
            "simulation; run at least 4 ranks per node (every dedicated core needs a client) or "
            "lower the number of dedicated cores.");
  cores.mask = "0001";
  EXPECT_EQ(message(8, 4),
            "p.xml:6:5: node 0: <placement mask=\"0001\"> marks 2 of its 8 ranks as dedicated "
            "cores, but <dedicated cores=\"4\"/> needs 4; put a 1 for each dedicated core.");
}

// Damaris 1.x ignores the mask: a Damaris file's mask that a node cannot satisfy gives way to
// Damaris's placement (the last local ranks), with a warning, where an Ecluse file is refused.
TEST(NodePlan, ADamarisMaskThatDoesNotFitFallsBackToTheLastRanks) {
  ecluse::CorePlacement cores;
  cores.mask = "0001";
  cores.mask_may_yield = true;
  cores.where = {"m.xml", 7, 9};
  const NodePlan plan = plan_dedicated_cores(0, 8, 4, ecluse::ServerPlacement::Last, cores);
  EXPECT_EQ(servers_of(plan), (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(plan.placement_warning,
            "m.xml:7:9: node 0: <placement mask=\"0001\"> marks 2 of its 8 ranks as dedicated "
            "cores, but <dedicated cores=\"4\"/> needs 4. Damaris 1.x ignores the mask, so its "
            "placement is used: the last 4 local ranks (4-7) are the dedicated cores. Nodes of "
            "at least 16 ranks would satisfy the mask; remove mask= to keep Damaris's placement "
            "silently.");
  // Where it fits, the mask is honoured, without a word.
  const NodePlan fits = plan_dedicated_cores(0, 16, 4, ecluse::ServerPlacement::Last, cores);
  EXPECT_EQ(servers_of(fits), (std::vector<int>{3, 7, 11, 15}));
  EXPECT_EQ(fits.placement_warning, "");
}

}  // namespace

// <dedicated roles>: clients go to the storing cores only; each storing core feeds an analysis
// core, which serves (indirectly) the clients of the storing cores that feed it.
namespace roles {

using ecluse::ServerRole;

TEST(NodePlanRoles, ClientsGoToStoringCoresWhichFeedTheAnalysisCores) {
  const NodePlan plan =
      plan_dedicated_cores(0, 8, 3, ecluse::ServerPlacement::Last, {},
                           {ServerRole::Store, ServerRole::Analysis, ServerRole::Store});
  EXPECT_EQ(clients_per_server(plan), (std::map<int, int>{{0, 3}, {2, 2}}));
  // local ranks 5, 6, 7 are cores 0, 1, 2 (each its own index); clients 0-2 -> 0, 3-4 -> 2
  EXPECT_EQ(plan.server_index, (std::vector<int>{0, 0, 0, 2, 2, 0, 1, 2}));
  EXPECT_EQ(plan.forward_to, (std::vector<int>{1, -1, 1}));
  EXPECT_EQ(plan.clients_of(0), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(plan.clients_of(2), (std::vector<int>{3, 4}));
  EXPECT_EQ(plan.clients_of(1), (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(NodePlanRoles, WithoutRolesEveryCoreStoresAndFeedsNoOne) {
  const NodePlan plan = plan_dedicated_cores(0, 4, 2, ecluse::ServerPlacement::Last);
  EXPECT_EQ(plan.server_roles, (std::vector<ServerRole>{ServerRole::Store, ServerRole::Store}));
  EXPECT_EQ(plan.forward_to, (std::vector<int>{-1, -1}));
  EXPECT_EQ(plan.clients_of(1), (std::vector<int>{1}));
}

}  // namespace roles
