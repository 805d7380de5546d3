// Where every client of a time-partitioning run is, before the stores they run together.
#include "transport/IterationAgreement.hpp"

#include <utility>

#include "core/Collective.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {

namespace {

// A client's place: 2 i while it ends iteration i, 2 n + 1 in finalize after n iterations.
long long ending(int iteration) {
  return 2LL * iteration;
}
long long finalizing(int ended) {
  return 2LL * ended + 1;
}

std::string described(long long place) {
  if (place % 2 == 0) return "ends iteration " + std::to_string(place / 2);
  return "is in finalize after " + std::to_string((place - 1) / 2) + " iteration(s)";
}

}  // namespace

IterationAgreement::IterationAgreement(MPI_Comm clients, std::string together,
                                       Accounting& accounting)
    : clients_(clients), together_(std::move(together)), accounting_(accounting) {}

std::string IterationAgreement::disagreement(long long place, bool unended, bool* any_unended) {
  long long values[3] = {unended ? 1 : 0, place, -place};  // their maxima: any, last, first
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallreduce(MPI_IN_PLACE, values, 3, MPI_LONG_LONG, MPI_MAX, clients_, &request);
  complete(request, clients_, "MPI_Iallreduce");
  *any_unended = values[0] != 0;
  if (values[1] == -values[2]) return "";
  const long long other = values[1] != place ? values[1] : -values[2];
  return "the clients are out of step: this client " + described(place) + " while another " +
         described(other) + ". Under time partitioning the clients store each iteration " +
         "together (" + together_ +
         "), so each must call end_iteration as many times as the others before finalize; "
         "the iterations not ended together are not stored.";
}

void IterationAgreement::fail() const {
  throw Error(ECLUSE_IO_ERROR, out_of_step_);
}

void IterationAgreement::before_end_iteration(int iteration) {
  if (together_.empty()) return;
  bool ignored = false;
  if (out_of_step_.empty()) {
    const WaitScope scope("in end_iteration for the clients' iterations");
    out_of_step_ = disagreement(ending(iteration), false, &ignored);
  }
  if (out_of_step_.empty()) return;
  accounting_.add_store_errors(iteration, 1);
  fail();
}

// Out of step already: the clients behind took their part of this exchange in their finalize.
bool IterationAgreement::in_finalize(int ended, bool unended) {
  if (!out_of_step_.empty()) fail();
  bool any_unended = false;
  const WaitScope scope("in finalize for the clients' unended iterations");
  const std::string disagree = disagreement(finalizing(ended), unended, &any_unended);
  // Without stores run together, clients may end different numbers of iterations.
  if (together_.empty() || disagree.empty()) return any_unended;
  out_of_step_ = disagree;
  fail();
}

}  // namespace ecluse
