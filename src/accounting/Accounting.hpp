// Wall and CPU time of one rank per phase, bytes handed over, and its iterations reduced to
// streaming statistics as they end (optionally traced to a file); a phase switch is two clock
// reads and no allocation.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>

#include "accounting/IterationSeries.hpp"
#include "accounting/Phase.hpp"
#include "accounting/TraceFile.hpp"

namespace ecluse {

struct PhaseTime {
  double wall = 0;  // seconds
  double cpu = 0;   // seconds of this thread's CPU time
};

class Accounting {
 public:
  /** Starts in Phase::Setup now. */
  Accounting();
  /** Accounts the time since the last switch to the current phase; returns the previous one. */
  Phase switch_to(Phase phase);
  [[nodiscard]] Phase current() const { return current_; }
  /** Closes the current phase so that totals() adds up to the wall and CPU time so far. */
  void close();
  void add_bytes(std::uint64_t bytes) { bytes_ += static_cast<double>(bytes); }
  /** A client ended `iteration`: records its write time and bytes since the last end. */
  void end_iteration(int iteration);
  /** The stores ran for `seconds` on `iteration`, with `blocks` blocks. */
  void add_store(int iteration, double seconds, std::size_t blocks);
  /** `stores` stores failed on `iteration` (recorded after its add_store). */
  void add_store_errors(int iteration, int stores);
  /** The stores that failed so far on this rank, over all iterations. */
  [[nodiscard]] std::uint64_t store_errors() const { return store_errors_; }
  /** Called at every switch of phase, also to the phase already current (a server's loop
   * switches to Idle every 100 ms: the frequency governor then applies a lowering it had to
   * postpone); must not throw. */
  void on_switch(std::function<void(Phase from, Phase to)> observer) {
    observer_ = std::move(observer);
  }

  /** Time another thread of this rank spent in `phase` (a server's store thread storing an
   * iteration) while this thread idled or gathered: `wall` moves to `phase` from this thread's
   * idle time, then its gather time, so that the phases still add up to the rank's wall time;
   * `cpu`, that thread's own, is added to `phase`. On the accounting's own thread. */
  void add_background(Phase phase, double wall, double cpu);
  /** Work of this rank on another thread (a server's store thread writing): its own thread may
   * be idle meanwhile, the rank is not (the frequency governor keeps its core up). */
  void set_background_work(bool busy) { background_work_ = busy; }
  [[nodiscard]] bool background_work() const { return background_work_; }

  [[nodiscard]] const std::array<PhaseTime, kPhaseCount>& totals() const { return totals_; }
  /** Also writes every iteration to `trace` from now on. */
  void trace_to(std::unique_ptr<TraceFile> trace) { trace_ = std::move(trace); }
  /** The iterations so far, the last one included; closes the trace (the run is ending). */
  const IterationSeries& finish_series();
  [[nodiscard]] double bytes() const { return bytes_; }
  [[nodiscard]] double wall_seconds() const;

 private:
  /** Phases whose CPU time is their wall time (no CPU clock read on the client's path). */
  static constexpr bool busy(Phase phase) { return phase == Phase::Write; }
  /** Gives the CPU time since the last read to its owner; `next_owner` owns it from now. */
  void read_cpu(Phase next_owner);
  [[nodiscard]] double visible_write_seconds() const;
  /** The record of `iteration`, after completing the one of an earlier iteration. */
  IterationRecord& record_of(int iteration);
  void complete();
  std::array<PhaseTime, kPhaseCount> totals_{};
  IterationSeries series_;
  IterationRecord pending_;  // servers learn of an iteration's errors after its store time
  bool has_pending_ = false;
  std::uint64_t store_errors_ = 0;
  std::unique_ptr<TraceFile> trace_;
  Phase current_ = Phase::Setup;
  double start_wall_, last_wall_, last_cpu_;
  Phase cpu_owner_ = Phase::Setup;  // the non-busy phase the CPU time since last_cpu_ belongs to
  double busy_wall_ = 0;            // busy phases' wall time since last_cpu_ (counted as CPU)
  double bytes_ = 0, bytes_at_end_ = 0, write_at_end_ = 0;
  std::function<void(Phase, Phase)> observer_;
  bool background_work_ = false;
};

/** Switches to `phase` for the scope's lifetime, then back to the phase it found. */
class PhaseScope {
 public:
  PhaseScope(Accounting& accounting, Phase phase)
      : accounting_(accounting), previous_(accounting.switch_to(phase)) {}
  ~PhaseScope() { accounting_.switch_to(previous_); }
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

 private:
  Accounting& accounting_;
  Phase previous_;
};

/** Seconds on CLOCK_MONOTONIC and of this thread's CPU time. */
double wall_clock();
double thread_cpu_clock();

}  // namespace ecluse
