// Bounds by ECLUSE_TIMEOUT the calls Ecluse cannot make nonblocking: collective HDF5 calls
// (MPI-IO underneath) of the stores, and the MPI collectives without a nonblocking form
// (MPI_Comm_split and MPI_Comm_split_type at set-up). One watchdog thread per process, started
// at the first call and waiting on a condition variable for the earliest deadline of the calls
// in progress.
#pragma once

#include <mpi.h>

#include <chrono>
#include <string>

namespace ecluse {

/** Armed by its constructor when ECLUSE_TIMEOUT is set, disarmed by its destructor: if the
 * call it surrounds has not returned within wait_timeout(), the watchdog prints "ecluse: world rank
 * R: timeout (ECLUSE_TIMEOUT=N s) waiting in store 'S' for <operation> of file 'F' ..." on stderr
 * and ends the process with exit status 124, as abort_on_timeout does (MPI_Abort when MPI gives
 * MPI_THREAD_MULTIPLE, else _exit: the other thread is inside MPI). Costs two
 * uncontended mutex locks; nothing is formatted unless the deadline passes. The strings must
 * outlive the object. Blocking calls may be bounded from several threads at once. */
class BlockingCall {
 public:
  /** Where the call is made: the store, its file and the communicator of the collective. */
  struct Site {
    const std::string& store;
    const std::string& file;
    MPI_Comm comm;
  };
  /** A store's collective HDF5 call: armed only when ECLUSE_TIMEOUT is set. */
  BlockingCall(Site site, const char* operation);
  /** A blocking MPI collective over comm (no I/O in it): always armed, with wait_timeout()
   * ("ecluse: world rank R: timeout (ECLUSE_TIMEOUT=N s) waiting in <operation> ..."). */
  BlockingCall(MPI_Comm comm, const char* operation);
  ~BlockingCall();
  BlockingCall(const BlockingCall&) = delete;
  BlockingCall& operator=(const BlockingCall&) = delete;

 private:
  friend class Watchdog;
  void arm();
  Site site_;
  const char* operation_;
  bool armed_ = false;
  int ranks_ = 0;
  std::chrono::steady_clock::time_point deadline_;
  BlockingCall* previous_ = nullptr;
  BlockingCall* next_ = nullptr;
};

}  // namespace ecluse
