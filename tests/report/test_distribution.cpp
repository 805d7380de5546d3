// Streaming statistics: exact moments, quantiles within a bucket, merging ranks, and the
// counters of an iteration series (outputs, gaps, failures), all in constant memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "accounting/IterationSeries.hpp"

namespace {

using ecluse::Distribution;

// The nearest-rank quantile of sorted values.
double exact_quantile(const std::vector<double>& sorted, double q) {
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::max<std::size_t>(rank, 1) - 1];
}

std::vector<double> samples(int n, double scale) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(scale * (1 + (i * 7919) % 1000) * 1e-6);
  return v;
}

TEST(Distribution, MomentsAreThoseOfTheSamples) {
  Distribution d;
  const std::vector<double> v{0.5, 0.25, 2.0, 1.25};
  for (double x : v) d.add(x);
  EXPECT_EQ(d.count(), 4u);
  EXPECT_EQ(d.sum(), 4.0);
  EXPECT_EQ(d.min(), 0.25);
  EXPECT_EQ(d.max(), 2.0);
  EXPECT_EQ(d.mean(), 1.0);
  // Population variance: (0.25 + 0.5625 + 1 + 0.0625) / 4.
  EXPECT_DOUBLE_EQ(d.variance(), 0.46875);
}

TEST(Distribution, QuantilesFallInTheBucketOfTheExactValue) {
  Distribution d;
  std::vector<double> v = samples(5000, 3.0);
  for (double x : v) d.add(x);
  std::sort(v.begin(), v.end());
  const double width = std::exp2(1.0 / Distribution::kPerOctave);
  for (double q : {0.01, 0.5, 0.9, 0.99, 1.0}) {
    const double exact = exact_quantile(v, q), estimate = d.quantile(q);
    EXPECT_LE(std::max(exact, estimate) / std::min(exact, estimate), width) << q;
  }
  EXPECT_EQ(d.quantile(1.0), v.back());
  EXPECT_EQ(d.quantile(0.0), v.front());
}

TEST(Distribution, ZeroAndHugeValuesHaveTheirOwnBuckets) {
  EXPECT_EQ(Distribution::bucket_of(0.0), 0);
  EXPECT_EQ(Distribution::bucket_of(-1.0), 0);
  EXPECT_EQ(Distribution::bucket_of(1e300), Distribution::kBuckets - 1);
  const auto [lower, upper] = Distribution::bounds_of(Distribution::bucket_of(1.0));
  EXPECT_LE(lower, 1.0);
  EXPECT_GT(upper, 1.0);
  Distribution d;
  d.add(0.0);
  d.add(0.0);
  d.add(3.0);
  EXPECT_EQ(d.quantile(0.5), 0.0);
  EXPECT_EQ(d.buckets().size(), 2u);
}

TEST(Distribution, MergingEqualsAddingEverything) {
  const std::vector<double> a = samples(300, 1.0), b = samples(700, 50.0);
  Distribution da, db, all;
  for (double x : a) da.add(x), all.add(x);
  for (double x : b) db.add(x), all.add(x);
  da.merge(db);
  EXPECT_EQ(da.count(), all.count());
  EXPECT_EQ(da.min(), all.min());
  EXPECT_EQ(da.max(), all.max());
  EXPECT_DOUBLE_EQ(da.sum(), all.sum());
  EXPECT_NEAR(da.mean(), all.mean(), 1e-12 * all.mean());
  EXPECT_NEAR(da.variance(), all.variance(), 1e-9 * all.variance());
  EXPECT_EQ(da.buckets(), all.buckets());
  for (double q : {0.5, 0.9, 0.99}) EXPECT_EQ(da.quantile(q), all.quantile(q));
}

TEST(Distribution, MemoryIsBoundedByTheBuckets) {
  Distribution d;
  for (int i = 0; i < 200000; ++i) d.add(std::ldexp(1.0 + (i % 97) / 97.0, (i % 120) - 60));
  EXPECT_EQ(d.count(), 200000u);
  EXPECT_LE(d.buckets().size(), static_cast<std::size_t>(Distribution::kBuckets));
}

ecluse::IterationRecord client(int iteration, double write, double bytes) {
  ecluse::IterationRecord r;
  r.iteration = iteration;
  r.ended = true;
  r.write_seconds = write;
  r.bytes = bytes;
  return r;
}

TEST(IterationSeries, OutputsQuietIterationsAndGaps) {
  ecluse::IterationSeries s;
  for (int it = 0; it < 10; ++it) s.add(client(it, it % 3 == 0 ? 0.5 : 0.001, it % 3 ? 0 : 64));
  const auto& c = s.counters;
  EXPECT_EQ(c.ended.count, 10);
  EXPECT_EQ(c.outputs.count, 4);  // 0, 3, 6, 9
  EXPECT_EQ(c.outputs.first, 0);
  EXPECT_EQ(c.outputs.last, 9);
  EXPECT_EQ(c.min_gap, 3);
  EXPECT_EQ(c.max_gap, 3);
  // The write mean counts only the iterations that wrote.
  EXPECT_EQ(s.of(ecluse::Series::Write).mean(), 0.5);
  EXPECT_EQ(s.of(ecluse::Series::Quiet).count(), 6u);
  EXPECT_EQ(s.of(ecluse::Series::Bytes).sum(), 256.0);
}

TEST(IterationSeries, StoresWithAndWithoutBlocksAndFailures) {
  ecluse::IterationSeries s;
  ecluse::IterationRecord r;
  r.stored = true;
  r.store_seconds = 0.25;
  r.stored_blocks = 2;
  s.add(r);
  r.iteration = 1;
  r.stored_blocks = 0;
  r.store_seconds = 0.001;
  r.store_errors = 1;
  s.add(r);
  EXPECT_EQ(s.of(ecluse::Series::Store).sum(), 0.25);
  EXPECT_EQ(s.of(ecluse::Series::StoreEmpty).count(), 1u);
  EXPECT_EQ(s.counters.store_errors, 1.0);
  EXPECT_EQ(s.counters.failed.first, 1);
  EXPECT_EQ(s.counters.ended.count, 0);
}

TEST(IterationSeries, RanksMergeIntoTheirRole) {
  ecluse::SeriesCounters a, b;
  a.ended = {10, 0, 9};
  b.ended = {10, 0, 9};
  a.outputs = {5, 0, 8};
  b.outputs = {4, 2, 8};
  a.min_gap = a.max_gap = 2;
  b.min_gap = 2;
  b.max_gap = 4;
  a.failed = {1, 3, 3};
  b.failed = {2, 5, 6};
  a.store_errors = 1;
  b.store_errors = 3;
  a.merge(b);
  EXPECT_EQ(a.ended.count, 10);  // the same iterations, not twice as many
  EXPECT_EQ(a.outputs.count, 5);
  EXPECT_EQ(a.outputs.first, 0);
  EXPECT_EQ(a.max_gap, 4);
  EXPECT_EQ(a.failed.count, 3);  // failures of different ranks add up
  EXPECT_EQ(a.failed.first, 3);
  EXPECT_EQ(a.failed.last, 6);
  EXPECT_EQ(a.store_errors, 4.0);
}

}  // namespace
