// Phase bookkeeping with CLOCK_MONOTONIC and CLOCK_THREAD_CPUTIME_ID.
#include "accounting/Accounting.hpp"

#include <algorithm>
#include <ctime>

namespace ecluse {

namespace {
double seconds_of(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}
}  // namespace

double wall_clock() {
  return seconds_of(CLOCK_MONOTONIC);
}

double thread_cpu_clock() {
  return seconds_of(CLOCK_THREAD_CPUTIME_ID);
}

Accounting::Accounting()
    : start_wall_(wall_clock()), last_wall_(start_wall_), last_cpu_(thread_cpu_clock()) {}

// A Write is busy from start to end (a copy and a notification; any sleep in it is
// Phase::Wait), so its CPU time is its wall time. The thread's CPU clock is a system call (about
// 1 us in a VM), so it is read only when the phase that owns the CPU time since the last read
// changes (Compute to Wait, Idle to Store, ...), never on a Compute -> Write -> Compute round
// trip: the CPU time of the owner is then the CPU time since the read minus the busy phases'.
Phase Accounting::switch_to(Phase phase) {
  const double wall = wall_clock();
  const double elapsed = wall - last_wall_;
  PhaseTime& t = totals_[static_cast<std::size_t>(current_)];
  t.wall += elapsed;
  last_wall_ = wall;
  if (busy(current_)) {
    t.cpu += elapsed;
    busy_wall_ += elapsed;
  }
  if (!busy(phase) && phase != cpu_owner_) read_cpu(phase);
  const Phase previous = current_;
  current_ = phase;
  if (observer_) observer_(previous, phase);  // also to the same phase: see on_switch
  return previous;
}

void Accounting::read_cpu(Phase next_owner) {
  const double cpu = thread_cpu_clock();
  const double owned = cpu - last_cpu_ - busy_wall_;
  totals_[static_cast<std::size_t>(cpu_owner_)].cpu += owned > 0 ? owned : 0;
  last_cpu_ = cpu;
  busy_wall_ = 0;
  cpu_owner_ = next_owner;
}

void Accounting::close() {
  switch_to(current_);
  read_cpu(busy(current_) ? cpu_owner_ : current_);
}

double Accounting::visible_write_seconds() const {
  // TP clients run the stores inside end_iteration: that is client-visible time too.
  return totals_[static_cast<std::size_t>(Phase::Write)].wall +
         totals_[static_cast<std::size_t>(Phase::Wait)].wall +
         totals_[static_cast<std::size_t>(Phase::Store)].wall;
}

void Accounting::end_iteration(int iteration) {
  switch_to(current_);  // wall times only: no CPU clock read on the client's path
  IterationRecord& r = record_of(iteration);  // TP: the stores of this iteration ran first
  r.ended = true;
  r.write_seconds = visible_write_seconds() - write_at_end_;
  r.bytes = bytes_ - bytes_at_end_;
  write_at_end_ = visible_write_seconds();
  bytes_at_end_ = bytes_;
  complete();  // nothing of an iteration follows its end on a client
}

void Accounting::add_background(Phase phase, double wall, double cpu) {
  switch_to(current_);  // the time of the current phase so far is in its total
  PhaseTime& to = totals_[static_cast<std::size_t>(phase)];
  for (const Phase from : {Phase::Idle, Phase::Gather}) {
    PhaseTime& source = totals_[static_cast<std::size_t>(from)];
    const double moved = std::min(wall, source.wall);
    source.wall -= moved;
    to.wall += moved;
    wall -= moved;
  }
  to.cpu += cpu;
}

void Accounting::add_store(int iteration, double seconds, std::size_t blocks) {
  IterationRecord& r = record_of(iteration);
  r.stored = true;
  r.store_seconds += seconds;
  r.stored_blocks += static_cast<double>(blocks);
}

void Accounting::add_store_errors(int iteration, int stores) {
  record_of(iteration).store_errors += stores;
  if (stores > 0) store_errors_ += static_cast<std::uint64_t>(stores);
}

IterationRecord& Accounting::record_of(int iteration) {
  if (has_pending_ && pending_.iteration != iteration) complete();
  if (!has_pending_) {
    pending_ = IterationRecord{};
    pending_.iteration = iteration;
    has_pending_ = true;
  }
  return pending_;
}

void Accounting::complete() {
  if (!has_pending_) return;
  series_.add(pending_);
  if (trace_) trace_->write(pending_);
  has_pending_ = false;
}

const IterationSeries& Accounting::finish_series() {
  complete();
  if (trace_) trace_->close();
  return series_;
}

double Accounting::wall_seconds() const {
  return wall_clock() - start_wall_;
}

}  // namespace ecluse
