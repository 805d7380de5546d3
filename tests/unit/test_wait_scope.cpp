// The bound of Ecluse's waits: ECLUSE_TIMEOUT (default 600 s) everywhere, except in a scope
// paced by the peers' own work (finalize: clients wait for the servers' backlog, servers for
// clients that write a last checkpoint between stop and finalize), bounded only when
// ECLUSE_TIMEOUT is set.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/Collective.hpp"

using ecluse::WaitScope;

TEST(WaitScope, PacedScopesAreBoundedOnlyWhenTheTimeoutIsSet) {
  unsetenv("ECLUSE_TIMEOUT");
  EXPECT_TRUE(ecluse::waits_are_bounded());
  {
    const WaitScope paced("in finalize", WaitScope::Bound::PacedByPeers);
    EXPECT_FALSE(ecluse::waits_are_bounded());
    {
      const WaitScope inner("in the report gather");
      EXPECT_TRUE(ecluse::waits_are_bounded());
    }
    EXPECT_FALSE(ecluse::waits_are_bounded());  // the outer scope's bound is back
    setenv("ECLUSE_TIMEOUT", "30", 1);
    EXPECT_TRUE(ecluse::waits_are_bounded());
    unsetenv("ECLUSE_TIMEOUT");
  }
  EXPECT_TRUE(ecluse::waits_are_bounded());
  EXPECT_EQ(ecluse::wait_timeout().count(), 600);
}
