// The watchdog thread: sleeps until the earliest deadline of the blocking calls in progress and
// ends the process if that call is still there.
#include "core/Watchdog.hpp"

#include <pthread.h>

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "core/Collective.hpp"

namespace ecluse {

using Clock = std::chrono::steady_clock;

class Watchdog {
 public:
  // Never destroyed: its thread may still wait on the condition variable at exit.
  static Watchdog& instance() {
    static Watchdog* watchdog = new Watchdog();
    return *watchdog;
  }

  void arm(BlockingCall& call) {
    const std::lock_guard<std::mutex> lock(mutex_);
    call.next_ = calls_;
    if (calls_ != nullptr) calls_->previous_ = &call;
    calls_ = &call;
    // The thread sleeps until an earlier deadline (or for ever when idle): a call made after
    // another ended wakes nobody, so arming costs no system call in a run of calls.
    if (call.deadline_ < sleeping_until_) wake_.notify_one();
  }

  void disarm(BlockingCall& call) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (call.previous_ != nullptr) call.previous_->next_ = call.next_;
    if (call.next_ != nullptr) call.next_->previous_ = call.previous_;
    if (calls_ == &call) calls_ = call.next_;
  }

 private:
  Watchdog() {
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank_);
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    may_abort_ = level == MPI_THREAD_MULTIPLE;
    std::thread([this] { run(); }).detach();
  }

  BlockingCall* earliest() const {
    BlockingCall* first = calls_;
    for (BlockingCall* c = calls_; c != nullptr; c = c->next_) {
      if (c->deadline_ < first->deadline_) first = c;
    }
    return first;
  }

  void run() {
    pthread_setname_np(pthread_self(), "ecluse-watchdog");  // for top -H, perf and gdb
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      const BlockingCall* first = earliest();
      if (first == nullptr) {
        sleeping_until_ = Clock::time_point::max();
        wake_.wait(lock);
        continue;
      }
      // The lock is held from here to the end: the call cannot return and free its strings.
      if (Clock::now() >= first->deadline_) end_process(*first);
      sleeping_until_ = first->deadline_;
      wake_.wait_until(lock, first->deadline_);
    }
  }

  [[noreturn]] void end_process(const BlockingCall& call) const {
    const std::string where =
        call.site_.store.empty()
            ? std::string(call.operation_) + " (a blocking MPI collective among " +
                  std::to_string(call.ranks_) + " ranks, which has no nonblocking form)"
            : "store '" + call.site_.store + "' for " + call.operation_ + " of file '" +
                  call.site_.file + "' (a collective HDF5 call over MPI-IO among " +
                  std::to_string(call.ranks_) + " ranks)";
    end_on_timeout(world_rank_,
                   "in " + where +
                       ": one of them died, or is blocked elsewhere, or is slower than the "
                       "timeout; see the other ranks' output, or raise ECLUSE_TIMEOUT.",
                   may_abort_);
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  BlockingCall* calls_ = nullptr;
  Clock::time_point sleeping_until_ = Clock::time_point::max();
  int world_rank_ = -1;
  bool may_abort_ = false;
};

BlockingCall::BlockingCall(Site site, const char* operation) : site_(site), operation_(operation) {
  // Only with ECLUSE_TIMEOUT set: these calls include the I/O itself, which a large output on a
  // slow file system may make longer than the default bound of the waits.
  if (timeout_is_set()) arm();
}

namespace {
const std::string kNoStore;
}  // namespace

BlockingCall::BlockingCall(MPI_Comm comm, const char* operation)
    : site_{kNoStore, kNoStore, comm}, operation_(operation) {
  arm();
}

void BlockingCall::arm() {
  armed_ = true;
  MPI_Comm_size(site_.comm, &ranks_);
  deadline_ = Clock::now() + wait_timeout();
  Watchdog::instance().arm(*this);
}

BlockingCall::~BlockingCall() {
  if (armed_) Watchdog::instance().disarm(*this);
}

}  // namespace ecluse
