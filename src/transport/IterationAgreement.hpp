// Time partitioning with stores that write together (collective HDF5 calls, a write schedule,
// in-situ hooks): each client's end_iteration and its finalize first agree on where every client
// is, so that clients out of step (one ended more iterations than another) get a message that
// says so instead of mismatched collectives (MPI_ERR_TRUNCATE, or a hang until ECLUSE_TIMEOUT).
#pragma once

#include <mpi.h>

#include <string>

#include "accounting/Accounting.hpp"

namespace ecluse {

class IterationAgreement {
 public:
  /** `together`: what makes the clients store together (Writer::stores_together(); empty:
   * nothing, and end_iteration agrees on nothing). */
  IterationAgreement(MPI_Comm clients, std::string together, Accounting& accounting);
  /** Before the stores of `iteration` (collective over the clients): throws ECLUSE_IO_ERROR,
   * the iteration counted as not stored, when another client ends another iteration or is in
   * finalize; from then on every call throws at once, with no collective. */
  void before_end_iteration(int iteration);
  /** In finalize, after `ended` iterations (collective over the clients unless out of step
   * already): whether some client wrote blocks it did not end (the iteration stored then).
   * Throws ECLUSE_IO_ERROR when the clients are out of step (found now or before). */
  bool in_finalize(int ended, bool unended);

 private:
  /** The clients' places, one exchange; empty when every client is where this one is. */
  std::string disagreement(long long place, bool unended, bool* any_unended);
  [[noreturn]] void fail() const;

  MPI_Comm clients_;
  std::string together_;
  Accounting& accounting_;
  std::string out_of_step_;  // the message, once the clients were found out of step
};

}  // namespace ecluse
