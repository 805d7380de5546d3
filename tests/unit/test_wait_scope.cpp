// The bound of Ecluse's waits: ECLUSE_TIMEOUT (default 600 s) everywhere, except in a scope
// paced by the peers' own work (finalize: clients wait for the servers' backlog, servers for
// clients that write a last checkpoint between stop and finalize): ECLUSE_TIMEOUT when set,
// else a day.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/Collective.hpp"

using ecluse::WaitScope;

TEST(WaitScope, PacedScopesAreBoundedByTheTimeoutOnlyWhenItIsSet) {
  using std::chrono::seconds;
  unsetenv("ECLUSE_TIMEOUT");
  EXPECT_EQ(ecluse::current_wait_bound(), seconds(600));
  {
    const WaitScope paced("in finalize", WaitScope::Bound::PacedByPeers);
    EXPECT_EQ(ecluse::current_wait_bound(), seconds(24 * 3600));
    {
      const WaitScope inner("in the report gather");
      EXPECT_EQ(ecluse::current_wait_bound(), seconds(600));
    }
    EXPECT_EQ(ecluse::current_wait_bound(), seconds(24 * 3600));  // the outer scope's is back
    setenv("ECLUSE_TIMEOUT", "30", 1);
    EXPECT_EQ(ecluse::current_wait_bound(), seconds(30));
    unsetenv("ECLUSE_TIMEOUT");
  }
  EXPECT_EQ(ecluse::current_wait_bound(), seconds(600));
}
