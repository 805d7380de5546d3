// The process-wide failure handler.
#include "core/RunFailure.hpp"

#include <mpi.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "core/Collective.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {

namespace {

// Detection, then a timeout in finalize: a few entries per process, not one per poll.
constexpr int kMostFailures = 4;

struct Handler {
  std::mutex mutex;
  std::function<void(const RunFailure&)> function;
  int calls = 0;
};

std::atomic<bool> g_lost_peer{false};

struct LostPeer {
  std::mutex mutex;
  std::string cause;  // of the first
};

LostPeer& lost_peer() {
  static LostPeer* p = new LostPeer();  // never destroyed, as the handler
  return *p;
}

Handler& handler() {
  static Handler* h = new Handler();  // never destroyed: a failure may come during exit
  return *h;
}

}  // namespace

void set_failure_handler(std::function<void(const RunFailure&)> function) {
  const std::lock_guard<std::mutex> lock(handler().mutex);
  handler().function = std::move(function);
  handler().calls = 0;
}

void report_failure(const RunFailure& failure) noexcept {
  const std::lock_guard<std::mutex> lock(handler().mutex);
  if (!handler().function || handler().calls >= kMostFailures) return;
  ++handler().calls;
  try {
    handler().function(failure);
  } catch (...) {  // a report that cannot be written must not hide the failure itself
  }
}

void fail_on_lost_peer(const RunFailure& failure) {
  {
    const std::lock_guard<std::mutex> lock(lost_peer().mutex);
    if (lost_peer().cause.empty()) lost_peer().cause = failure.cause;
  }
  g_lost_peer.store(true);
  report_failure(failure);
  throw Error(ECLUSE_CHANNEL_ERROR, failure.cause);
}

bool lost_a_peer() noexcept {
  return g_lost_peer.load();
}

std::string lost_peer_cause() {
  const std::lock_guard<std::mutex> lock(lost_peer().mutex);
  return lost_peer().cause;
}

namespace {

// Run by MPI at the start of MPI_Finalize (the attributes of MPI_COMM_SELF are deleted first).
int bound_finalize(MPI_Comm /*comm*/, int /*key*/, void* /*value*/, void* /*extra*/) {
  if (!lost_a_peer()) return MPI_SUCCESS;
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::thread([rank] {
    std::this_thread::sleep_for(wait_timeout());
    end_on_timeout(rank,
                   "in MPI_Finalize, which this process entered after one of its peers died: "
                   "MPI_Finalize with a dead peer may never return (as with Open MPI under "
                   "--enable-recovery); this process ends here. See the first error of this "
                   "rank for the process that died.",
                   false);
  }).detach();
  return MPI_SUCCESS;
}

}  // namespace

void bound_finalize_after_lost_peer() {
  static std::once_flag once;
  std::call_once(once, [] {
    int key = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, bound_finalize, &key, nullptr);
    MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr);
  });
}

}  // namespace ecluse
