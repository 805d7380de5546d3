// "Did you mean" suggestions: edit distance, thresholds, formatting.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/Suggest.hpp"

namespace {

using ecluse::closest;
using ecluse::did_you_mean;
using ecluse::join;
using Words = std::vector<std::string>;

TEST(Closest, FindsOneEditAway) {
  EXPECT_EQ(closest("layuot", {"parameter", "layout", "variable"}), "layout");
  EXPECT_EQ(closest("dimension", {"name", "dimensions", "global"}), "dimensions");
  EXPECT_EQ(closest("HDF", {"HDF5", "null"}), "HDF5");
}

TEST(Closest, CountsASwapOfNeighboursAsOneEdit) {
  EXPECT_EQ(closest("WIDHT", {"WIDTH", "size"}), "WIDTH");
  EXPECT_EQ(closest("duoble", {"float", "double"}), "double");
}

TEST(Closest, IgnoresCase) {
  EXPECT_EQ(closest("DOUBLE", {"float", "double"}), "double");
  EXPECT_EQ(closest("collective", {"FilePerCore", "Collective"}), "Collective");
}

TEST(Closest, AllowsAThirdOfTheWordInEdits) {
  EXPECT_EQ(closest("abcdef", {"abxyef"}), "abxyef");  // 6 letters: 2 edits
  EXPECT_EQ(closest("abcdef", {"axyzef"}), "");        // 3 edits
  EXPECT_EQ(closest("cels", {"cells"}), "cells");      // 4 letters: 1 edit
  EXPECT_EQ(closest("cels", {"cellar"}), "");
}

TEST(Closest, SuggestsNothingForShortWordsButACaseChange) {
  EXPECT_EQ(closest("m", {"n"}), "");
  EXPECT_EQ(closest("y", {"x"}), "");
  EXPECT_EQ(closest("nx", {"ny"}), "");
  EXPECT_EQ(closest("N", {"n"}), "n");
  EXPECT_EQ(closest("", {"a", "b"}), "");
}

TEST(Closest, PrefersTheNearestThenTheFirst) {
  EXPECT_EQ(closest("skipp", {"block", "skip"}), "skip");
  EXPECT_EQ(closest("cat", {"bat", "cap"}), "bat");
  EXPECT_EQ(closest("grid", {"grids", "grid"}), "grid");
  EXPECT_EQ(closest("anything", {}), "");
}

TEST(DidYouMean, FormatsTheHint) {
  EXPECT_EQ(did_you_mean("skipp", {"block", "skip"}), "; did you mean 'skip'?");
  EXPECT_EQ(did_you_mean("layuot", {"layout"}, "\""), "; did you mean \"layout\"?");
  EXPECT_EQ(did_you_mean("zzz", {"block", "skip"}), "");
}

TEST(Join, SeparatesWords) {
  EXPECT_EQ(join({"a", "b", "c"}), "a, b, c");
  EXPECT_EQ(join({"one"}), "one");
  EXPECT_EQ(join(Words{}), "");
  EXPECT_EQ(join({"x", "y"}, "\n"), "x\ny");
}

}  // namespace
