// The process-wide failure handler.
#include "core/RunFailure.hpp"

#include <mutex>

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
  report_failure(failure);
  throw Error(ECLUSE_CHANNEL_ERROR, failure.cause);
}

}  // namespace ecluse
