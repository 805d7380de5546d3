// Reducing iteration records as they end.
#include "accounting/IterationSeries.hpp"

#include <algorithm>

namespace ecluse {

void IterationSpan::add(std::int64_t iteration) {
  if (count++ == 0) first = iteration;
  last = iteration;
}

void IterationSpan::merge(const IterationSpan& other) {
  if (other.count == 0) return;
  first = count == 0 ? other.first : std::min(first, other.first);
  last = count == 0 ? other.last : std::max(last, other.last);
  count += other.count;
}

void SeriesCounters::merge(const SeriesCounters& other) {
  // Each rank counts its own iterations: a role's count is the largest, not the sum.
  const auto widest = [](IterationSpan& mine, const IterationSpan& theirs) {
    const std::int64_t count = std::max(mine.count, theirs.count);
    mine.merge(theirs);
    mine.count = count;
  };
  widest(ended, other.ended);
  widest(outputs, other.outputs);
  widest(stored, other.stored);
  failed.merge(other.failed);  // failures stay separate per rank: they add up
  if (other.min_gap > 0) min_gap = min_gap > 0 ? std::min(min_gap, other.min_gap) : other.min_gap;
  max_gap = std::max(max_gap, other.max_gap);
  store_errors += other.store_errors;
}

void IterationSeries::add(const IterationRecord& r) {
  SeriesCounters& c = counters;
  if (r.ended) {
    c.ended.add(r.iteration);
    const bool output = r.bytes > 0;
    of(output ? Series::Write : Series::Quiet).add(r.write_seconds);
    if (output) {
      if (c.outputs.count > 0) {
        const std::int64_t gap = r.iteration - c.outputs.last;
        c.min_gap = c.min_gap > 0 ? std::min(c.min_gap, gap) : gap;
        c.max_gap = std::max(c.max_gap, gap);
      }
      c.outputs.add(r.iteration);
      of(Series::Bytes).add(r.bytes);
    }
  }
  if (r.stored) {
    c.stored.add(r.iteration);
    of(r.stored_blocks > 0 ? Series::Store : Series::StoreEmpty).add(r.store_seconds);
  }
  if (r.store_errors > 0) {
    c.failed.add(r.iteration);
    c.store_errors += r.store_errors;
  }
}

}  // namespace ecluse
