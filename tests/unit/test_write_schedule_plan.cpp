// The plan of a round of turns: longest last write first onto the least loaded chain.
#include <gtest/gtest.h>

#include "writer/WriteSchedulerPlan.hpp"

namespace {

using ecluse::kDeparted;
using ecluse::plan_turns;

TEST(WriteSchedulePlan, FirstRoundInRankOrderRoundRobin) {
  const auto turns = plan_turns({0, 0, 0, 0, 0}, 2);
  EXPECT_EQ(turns[0].after, -1);
  EXPECT_EQ(turns[1].after, -1);
  EXPECT_EQ(turns[2].after, 0);
  EXPECT_EQ(turns[3].after, 1);
  EXPECT_EQ(turns[4].after, 2);
  EXPECT_EQ(turns[0].before, 2);
  EXPECT_EQ(turns[4].before, -1);
}

// 4 s, 3 s, 2 s, 1 s on two chains: {4, 1} and {3, 2}, both 5 s.
TEST(WriteSchedulePlan, LongestFirstOnTheLeastLoadedChain) {
  const auto turns = plan_turns({1, 4, 2, 3}, 2);
  EXPECT_EQ(turns[1].after, -1);  // 4 s
  EXPECT_EQ(turns[3].after, -1);  // 3 s
  EXPECT_EQ(turns[2].after, 3);   // 2 s after 3 s
  EXPECT_EQ(turns[0].after, 1);   // 1 s after 4 s
}

TEST(WriteSchedulePlan, DepartedWritersTakeNoTurn) {
  const auto turns = plan_turns({kDeparted, 1, kDeparted, 1}, 1);
  EXPECT_EQ(turns[0].after, -1);
  EXPECT_EQ(turns[0].before, -1);
  EXPECT_EQ(turns[2].before, -1);
  EXPECT_EQ(turns[1].after, -1);
  EXPECT_EQ(turns[3].after, 1);
}

}  // namespace
