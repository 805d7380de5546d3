// Longest write first onto the least loaded chain (LPT), then chains turned into turns.
#include "writer/WriteSchedulerPlan.hpp"

#include <algorithm>

namespace ecluse {
namespace {

struct Chain {
  double load = 0;
  int last = -1;
  int members = 0;
};

// Writers taking part, longest last write first, ties in rank order.
std::vector<int> by_last_write(const std::vector<double>& seconds) {
  std::vector<int> order;
  for (int writer = 0; writer < static_cast<int>(seconds.size()); ++writer) {
    if (seconds[static_cast<std::size_t>(writer)] >= 0) order.push_back(writer);
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return seconds[static_cast<std::size_t>(a)] > seconds[static_cast<std::size_t>(b)];
  });
  return order;
}

// The least loaded chain; with equal loads the one with fewer writers, then the first.
Chain& least_loaded(std::vector<Chain>& chains) {
  return *std::min_element(chains.begin(), chains.end(), [](const Chain& a, const Chain& b) {
    return a.load != b.load ? a.load < b.load : a.members < b.members;
  });
}

}  // namespace

std::vector<Turn> plan_turns(const std::vector<double>& seconds, int concurrent) {
  std::vector<Turn> turns(seconds.size());
  std::vector<Chain> chains(static_cast<std::size_t>(std::max(concurrent, 1)));
  for (const int writer : by_last_write(seconds)) {
    Chain& chain = least_loaded(chains);
    if (chain.last >= 0) {
      turns[static_cast<std::size_t>(writer)].after = chain.last;
      turns[static_cast<std::size_t>(chain.last)].before = writer;
    }
    chain.load += seconds[static_cast<std::size_t>(writer)];
    chain.last = writer;
    ++chain.members;
  }
  return turns;
}

}  // namespace ecluse
