// A rank's iterations reduced as they end: streaming distributions of its write, store and byte
// figures and counters of outputs and failures, constant memory however long the run.
#pragma once

#include <cstdint>

#include "accounting/Distribution.hpp"

namespace ecluse {

/** One iteration seen by one rank: a client's visible write time, a server's store time. */
struct IterationRecord {
  std::int32_t iteration = 0;
  double write_seconds = 0;  // clients: write + wait (+ TP store) phases since the last end
  double store_seconds = 0;  // servers (and TP clients): time in the stores
  double bytes = 0;          // clients: bytes handed over
  double store_errors = 0;   // servers (and TP clients): stores that failed on this iteration
  double stored_blocks = 0;  // servers (and TP clients): blocks the stores received
  bool ended = false;        // a client ended it (end_iteration)
  bool stored = false;       // the stores ran on it
};

/** First and last iteration of a set, and how many; -1 while empty. */
struct IterationSpan {
  std::int64_t count = 0, first = -1, last = -1;
  void add(std::int64_t iteration);
  void merge(const IterationSpan& other);
};

/** The counters of IterationSeries: fixed size, sent between ranks as bytes. */
struct SeriesCounters {
  IterationSpan ended;                    // iterations a client ended
  IterationSpan outputs;                  // iterations in which a client handed bytes over
  IterationSpan stored;                   // iterations the stores ran on
  IterationSpan failed;                   // iterations on which a store failed
  std::int64_t min_gap = 0, max_gap = 0;  // between consecutive outputs (0: fewer than two)
  double store_errors = 0;                // failed stores, summed over iterations
  void merge(const SeriesCounters& other);
};

/** The distributions of IterationSeries, by index (kSeriesNames names them in the report). */
enum class Series { Write, Quiet, Bytes, Store, StoreEmpty };
inline constexpr std::size_t kSeriesCount = 5;

struct IterationSeries {
  SeriesCounters counters;
  Distribution series[kSeriesCount];

  /** Counts a completed record. */
  void add(const IterationRecord& r);
  [[nodiscard]] Distribution& of(Series s) { return series[static_cast<std::size_t>(s)]; }
  [[nodiscard]] const Distribution& of(Series s) const {
    return series[static_cast<std::size_t>(s)];
  }
};

}  // namespace ecluse
