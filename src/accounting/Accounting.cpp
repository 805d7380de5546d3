// Phase bookkeeping with CLOCK_MONOTONIC and CLOCK_THREAD_CPUTIME_ID.
#include "accounting/Accounting.hpp"

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

Phase Accounting::switch_to(Phase phase) {
  const double wall = wall_clock(), cpu = thread_cpu_clock();
  PhaseTime& t = totals_[static_cast<std::size_t>(current_)];
  t.wall += wall - last_wall_;
  t.cpu += cpu - last_cpu_;
  last_wall_ = wall;
  last_cpu_ = cpu;
  const Phase previous = current_;
  current_ = phase;
  if (observer_ && phase != previous) observer_(previous, phase);
  return previous;
}

double Accounting::visible_write_seconds() const {
  // TP clients run the stores inside end_iteration: that is client-visible time too.
  return totals_[static_cast<std::size_t>(Phase::Write)].wall +
         totals_[static_cast<std::size_t>(Phase::Wait)].wall +
         totals_[static_cast<std::size_t>(Phase::Store)].wall;
}

void Accounting::end_iteration(int iteration) {
  close();
  IterationRecord r;
  r.iteration = iteration;
  r.write_seconds = visible_write_seconds() - write_at_end_;
  r.bytes = bytes_ - bytes_at_end_;
  if (!iterations_.empty() && iterations_.back().iteration == iteration) {
    r.store_seconds = iterations_.back().store_seconds;  // TP: the stores ran first
    r.store_errors = iterations_.back().store_errors;
    iterations_.back() = r;
  } else {
    iterations_.push_back(r);
  }
  write_at_end_ = visible_write_seconds();
  bytes_at_end_ = bytes_;
}

void Accounting::add_store(int iteration, double seconds) {
  if (iterations_.empty() || iterations_.back().iteration != iteration) {
    iterations_.push_back({iteration, 0, 0, 0});
  }
  iterations_.back().store_seconds += seconds;
}

void Accounting::add_store_errors(int iteration, int stores) {
  if (iterations_.empty() || iterations_.back().iteration != iteration) {
    iterations_.push_back({iteration, 0, 0, 0});
  }
  iterations_.back().store_errors += stores;
}

double Accounting::wall_seconds() const {
  return wall_clock() - start_wall_;
}

}  // namespace ecluse
