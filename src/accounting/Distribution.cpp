// Welford's running mean and variance, and a sparse log-spaced histogram.
#include "accounting/Distribution.hpp"

#include <algorithm>
#include <cmath>

namespace ecluse {

void Distribution::add(double value) {
  if (count_ == 0) min_ = max_ = value;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
  ++count_;
  sum_ += value;
  const double delta = value - mean_;
  mean_ += delta / static_cast<double>(count_);
  m2_ += delta * (value - mean_);
  count_in(bucket_of(value), 1);
}

void Distribution::merge(const Distribution& other) {
  if (other.count_ == 0) return;
  if (count_ == 0) {
    *this = other;
    return;
  }
  const double n = static_cast<double>(count_), m = static_cast<double>(other.count_);
  const double delta = other.mean_ - mean_;
  mean_ += delta * m / (n + m);
  m2_ += other.m2_ + delta * delta * n * m / (n + m);
  count_ += other.count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  for (const auto& [bucket, n_in] : other.buckets_) count_in(bucket, n_in);
}

double Distribution::variance() const {
  return count_ > 1 ? m2_ / static_cast<double>(count_) : 0.0;
}

double Distribution::quantile(double q) const {
  if (count_ == 0) return 0;
  const double wanted = std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(count_));
  const std::uint64_t rank = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(wanted));
  if (rank == 1) return min_;  // the extremes are known exactly
  if (rank >= count_) return max_;
  std::uint64_t seen = 0;
  for (const auto& [bucket, n] : buckets_) {
    seen += n;
    if (seen < rank) continue;
    if (bucket == 0) return min_;
    if (bucket == kBuckets - 1) return max_;
    const auto [lower, upper] = bounds_of(bucket);
    return std::clamp(std::sqrt(lower * upper), min_, max_);
  }
  return max_;
}

int Distribution::bucket_of(double value) {
  if (!(value >= std::ldexp(1.0, kLowOctave))) return 0;  // also zero, negatives and NaN
  if (value >= std::ldexp(1.0, kHighOctave)) return kBuckets - 1;
  const double position = (std::log2(value) - kLowOctave) * kPerOctave;
  return std::clamp(static_cast<int>(position) + 1, 1, kBuckets - 2);
}

std::pair<double, double> Distribution::bounds_of(int bucket) {
  const auto edge = [](int b) { return std::exp2(kLowOctave + double(b) / kPerOctave); };
  return {edge(bucket - 1), edge(bucket)};
}

Distribution Distribution::from(const Moments& moments, Buckets buckets) {
  Distribution d;
  d.count_ = moments.count;
  d.sum_ = moments.sum;
  d.min_ = moments.min;
  d.max_ = moments.max;
  d.mean_ = moments.mean;
  d.m2_ = moments.m2;
  d.buckets_ = std::move(buckets);
  return d;
}

void Distribution::count_in(std::int32_t bucket, std::uint64_t n) {
  auto at = std::lower_bound(buckets_.begin(), buckets_.end(), bucket,
                             [](const auto& entry, int b) { return entry.first < b; });
  if (at != buckets_.end() && at->first == bucket) {
    at->second += n;
  } else {
    // Room for every bucket at the first one (a few KiB): an iteration that ends with a value
    // in a bucket not seen before then allocates nothing on the client's path.
    if (buckets_.capacity() < static_cast<std::size_t>(kBuckets)) {
      const auto index = at - buckets_.begin();
      buckets_.reserve(kBuckets);
      at = buckets_.begin() + index;
    }
    buckets_.insert(at, {bucket, n});
  }
}

}  // namespace ecluse
