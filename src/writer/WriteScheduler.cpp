// Rounds of turns: an allgather of the last write times, a plan every rank computes alike, and
// a token from the writer before in the chain to the one after.
#include "writer/WriteScheduler.hpp"

#include <algorithm>

#include "core/Collective.hpp"

namespace ecluse {
namespace {

constexpr int kTokenTag = 1;

std::string round_scope(const std::string& name, std::uint64_t round) {
  return "in the write schedule of store '" + name + "' (round " + std::to_string(round) + ")";
}

}  // namespace

WriteScheduler::WriteScheduler(MPI_Comm writers, int concurrent, std::string name)
    : comm_(duplicate(writers)), concurrent_(concurrent), name_(std::move(name)) {}

WriteScheduler::~WriteScheduler() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

std::vector<double> WriteScheduler::exchange(double mine) {
  int size = 1;
  MPI_Comm_size(comm_, &size);
  std::vector<double> all(static_cast<std::size_t>(size));
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallgather(&mine, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, comm_, &request);
  complete(request, comm_, "MPI_Iallgather");
  ++round_;
  return all;
}

void WriteScheduler::wait_turn() {
  const double start = wall_clock();
  const WaitScope scope(round_scope(name_, round_ + 1));
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  turn_ = plan_turns(exchange(last_seconds_), concurrent_)[static_cast<std::size_t>(rank)];
  if (turn_.after >= 0) {
    std::uint64_t round = 0;
    receive_bounded(&round, 1, MPI_UINT64_T, turn_.after, kTokenTag, comm_);
  }
  in_turn_ = true;
  const double waited = wall_clock() - start;
  ++waits_.count;
  waits_.seconds += waited;
  waits_.longest = std::max(waits_.longest, waited);
}

void WriteScheduler::end_turn(double seconds) {
  if (!in_turn_) return;
  in_turn_ = false;
  last_seconds_ = seconds;
  if (turn_.before < 0) return;
  const WaitScope scope(round_scope(name_, round_) + " handing the turn on");
  send_bounded(&round_, 1, MPI_UINT64_T, turn_.before, kTokenTag, comm_);
}

// A departed writer keeps joining the rounds' exchange (as kDeparted, so it gets no turn)
// until every writer has departed: writers with fewer iterations never hang the others.
void WriteScheduler::leave() {
  if (left_) return;
  left_ = true;
  const WaitScope scope("in the write schedule of store '" + name_ +
                        "' for the writers that still write");
  for (;;) {
    const std::vector<double> all = exchange(kDeparted);
    if (std::all_of(all.begin(), all.end(), [](double s) { return s < 0; })) return;
  }
}

TurnScope::TurnScope(WriteScheduler* scheduler, Accounting& accounting) : scheduler_(scheduler) {
  if (scheduler_ == nullptr) return;
  {
    const PhaseScope wait(accounting, Phase::Wait);
    scheduler_->wait_turn();
  }
  start_ = wall_clock();
}

TurnScope::~TurnScope() {
  if (scheduler_ != nullptr) scheduler_->end_turn(wall_clock() - start_);
}

}  // namespace ecluse
