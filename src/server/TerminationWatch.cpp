// Termination signals while a server serves.
#include "server/TerminationWatch.hpp"

#include <pthread.h>

#include <system_error>

#include "core/Log.hpp"
#include "core/RunFailure.hpp"
#include "server/BlockCollector.hpp"

namespace ecluse {

ServerSignals::ServerSignals(std::string who, BlockCollector& collector, Log& log,
                             TerminationWatch::Wake wake, void* arg)
    : who_(std::move(who)), collector_(collector), log_(log), watch_(wake, arg) {
  if (watch_.owner()) start_thread();
}

ServerSignals::~ServerSignals() {
  if (!thread_.joinable()) return;
  stopping_.store(true);
  watch_.cancel_wait();
  thread_.join();
}

// Without the thread the server's own checks still act, when its thread comes back to them.
void ServerSignals::start_thread() {
  try {
    thread_ = std::thread([this] { watch(); });
  } catch (const std::system_error& e) {
    log_.warning("the " + who_ + " acts on SIGTERM, SIGINT and SIGHUP between its own tasks " +
                 "only (no thread for them: " + e.what() + ")");
  }
}

// Reads only what the server's thread publishes for it: the watch's atomics, the collector's
// snapshot. A long wait: the handler wakes it, and so does the destructor.
void ServerSignals::watch() {
  pthread_setname_np(pthread_self(), "ecluse-signals");  // for top -H, perf and gdb
  while (!stopping_.load()) {
    watch_.wait(std::chrono::minutes(10));
    if (stopping_.load()) return;
    check();
  }
}

std::chrono::milliseconds ServerSignals::liveness_period() const noexcept {
  return signalled() ? std::chrono::milliseconds(100) : std::chrono::milliseconds(1000);
}

void ServerSignals::check() {
  if (watch_.received() == seen_.load()) return;
  const std::lock_guard<std::mutex> lock(mutex_);
  const int received = watch_.received();
  if (received == seen_.load()) return;  // the other thread acted on it
  const bool first = seen_.load() == 0;
  seen_.store(received);
  const auto now = std::chrono::steady_clock::now();
  if (first) {
    first_at_ = now;
    on_first();
  } else if (now - first_at_ >= std::chrono::seconds(1)) {
    on_second();
  }  // sooner: a launcher passing the same signal on (mpiexec does), not a user insisting
}

namespace {

std::string received_text(std::pair<int, int> range) {
  const auto [first, last] = range;
  if (first < 0) return "";
  return first == last ? " (received: iteration " + std::to_string(first) + ")"
                       : " (received: iterations " + std::to_string(first) + " to " +
                             std::to_string(last) + ")";
}

}  // namespace

// What is not stored: from the first iteration not stored on, open-ended, since iterations
// the clients handed over may still be on their way here (in the queue, in MPI).
void ServerSignals::report(const std::string& what, const Unstored& unstored) const {
  report_failure({what, "", -1, -1, unstored.first, -1, true});
}

std::string ServerSignals::unstored_text(const Unstored& unstored) {
  return "iteration " + std::to_string(unstored.first) +
         " and every later one its clients handed over are not stored yet" +
         received_text(unstored.range);
}

// What the server does after a first signal, by when it came.
std::string ServerSignals::after_first_text(const Unstored& unstored) const {
  if (clients_stopped_.load()) {
    return " after its clients stopped, while it stored what they handed over: " +
           unstored_text(unstored) +
           ". It stores on (this report is then replaced by the complete one); a second signal a "
           "second or more later ends it at once.";
  }
  return " while its clients ran: " + unstored_text(unstored) +
         ". It serves on until its clients stop (this report is then replaced by the complete "
         "one) or die (it then stores what they completed, says so here, and ends); a second "
         "signal a second or more later ends it at once.";
}

// On either thread: what is not stored as the serving thread last published it, read once.
void ServerSignals::on_first() {
  const Unstored unstored = collector_.unstored_snapshot();
  const std::string what = "the " + who_ + " received " + signal_name(watch_.first()) +
                           " (a batch system's time limit, scancel, Ctrl-C)" +
                           after_first_text(unstored);
  log_.warning(what);
  report(what, unstored);
}

void ServerSignals::on_second() {
  const Unstored unstored = collector_.unstored_snapshot();
  const std::string what = "the " + who_ + " received a second " + signal_name(watch_.first()) +
                           " and ends now: " + unstored_text(unstored) + ".";
  log_.error(what);
  report(what, unstored);
  watch_.end();
}

void ServerSignals::end_after_failure(const std::function<void()>& drain) {
  check();  // the signal and the clients' deaths may have come within one pass of the loop
  const std::string name = signal_name(watch_.first());
  log_.warning("the " + who_ + " ends by " + name +
               " once it stored the iterations its clients completed.");
  try {
    drain();
  } catch (const std::exception& e) {  // what it holds is still named below
    log_.warning("the " + who_ + " could not take in all that had arrived: " + e.what());
  }
  collector_.wait_stored();
  const std::lock_guard<std::mutex> lock(mutex_);  // the signals' thread may be ending it too
  const Unstored unstored = collector_.unstored_snapshot();
  const std::string what = "after " + name + " its clients died; the " + who_ +
                           " stored every iteration it received from all of them, and ends by "
                           "the signal: " +
                           unstored_text(unstored) +
                           " (this entry's first lost iteration replaces that of its entry at "
                           "the signal).";
  log_.warning(what);
  report(what, unstored);
  watch_.end();
}

}  // namespace ecluse
