// Bounds by ECLUSE_TIMEOUT the calls Ecluse cannot make nonblocking: collective HDF5 calls
// (MPI-IO underneath) of the stores. One watchdog thread per process, started at the first
// call and waiting on a condition variable for the earliest deadline of the calls in progress.
#pragma once

#include <mpi.h>

#include <chrono>
#include <string>

namespace ecluse {

/** Armed by its constructor when ECLUSE_TIMEOUT is set, disarmed by its destructor: if the
 * call it surrounds has not returned within wait_timeout(), the watchdog prints "ecluse: world rank
 * R: timeout (ECLUSE_TIMEOUT=N s) waiting in store 'S' for <operation> of file 'F' ..." on stderr
 * and ends the process with exit status 124, as abort_on_timeout does (MPI_Abort when MPI gives
 * MPI_THREAD_MULTIPLE, else write(2) and _exit: the other thread is inside MPI). Costs two
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
  BlockingCall(Site site, const char* operation);
  ~BlockingCall();
  BlockingCall(const BlockingCall&) = delete;
  BlockingCall& operator=(const BlockingCall&) = delete;

 private:
  friend class Watchdog;
  Site site_;
  const char* operation_;
  bool armed_ = false;
  int ranks_ = 0;
  std::chrono::steady_clock::time_point deadline_;
  BlockingCall* previous_ = nullptr;
  BlockingCall* next_ = nullptr;
};

}  // namespace ecluse
