// Streaming statistics of one series (count, sum, min, max, mean and variance by Welford, and a
// log-spaced histogram for quantiles): constant memory whatever the number of samples.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace ecluse {

class Distribution {
 public:
  /** Histogram buckets per doubling: a quantile is known within a factor 2^(1/16) (4.4%). */
  static constexpr int kPerOctave = 16;
  /** Buckets cover [2^kLowOctave, 2^kHighOctave): about 1 ns to 1e15 (seconds or bytes). */
  static constexpr int kLowOctave = -30, kHighOctave = 50;
  /** Bucket 0 holds values below the range (zero included), the last one values above it. */
  static constexpr int kBuckets = (kHighOctave - kLowOctave) * kPerOctave + 2;

  void add(double value);
  /** Adds another distribution's samples (Chan et al.'s pairwise update of the variance). */
  void merge(const Distribution& other);

  [[nodiscard]] std::uint64_t count() const { return count_; }
  [[nodiscard]] double sum() const { return sum_; }
  [[nodiscard]] double min() const { return min_; }
  [[nodiscard]] double max() const { return max_; }
  [[nodiscard]] double mean() const { return mean_; }
  /** Population variance (0 below two samples). */
  [[nodiscard]] double variance() const;
  /** The q-quantile (nearest rank) within its bucket's width, clamped to [min, max]. */
  [[nodiscard]] double quantile(double q) const;

  /** The bucket of a value, and the bounds [lower, upper) of a bucket within the range. */
  static int bucket_of(double value);
  static std::pair<double, double> bounds_of(int bucket);

  /** Non-empty buckets as (bucket, count), by bucket: what travels to rank 0. */
  using Buckets = std::vector<std::pair<std::int32_t, std::uint64_t>>;
  [[nodiscard]] const Buckets& buckets() const { return buckets_; }

  /** The fixed-size part, as sent between ranks. */
  struct Moments {
    std::uint64_t count = 0;
    double sum = 0, min = 0, max = 0, mean = 0, m2 = 0;
  };
  [[nodiscard]] Moments moments() const { return {count_, sum_, min_, max_, mean_, m2_}; }
  static Distribution from(const Moments& moments, Buckets buckets);

 private:
  void count_in(std::int32_t bucket, std::uint64_t n);
  std::uint64_t count_ = 0;
  double sum_ = 0, min_ = 0, max_ = 0, mean_ = 0, m2_ = 0;
  // Sorted, non-empty buckets only: a run touches a few dozen, so what travels to rank 0 is
  // small; at most kBuckets entries, and an allocation only for a bucket not seen before.
  Buckets buckets_;
};

}  // namespace ecluse
