// Termination signals while a server serves.
#include "server/TerminationWatch.hpp"

#include "core/Log.hpp"
#include "core/RunFailure.hpp"
#include "server/BlockCollector.hpp"

namespace ecluse {

ServerSignals::ServerSignals(std::string who, BlockCollector& collector, Log& log,
                             TerminationWatch::Wake wake, void* arg)
    : who_(std::move(who)), collector_(collector), log_(log), watch_(wake, arg) {}

std::chrono::milliseconds ServerSignals::liveness_period() const noexcept {
  return signalled() ? std::chrono::milliseconds(100) : std::chrono::milliseconds(1000);
}

void ServerSignals::check() {
  const int received = watch_.received();
  if (received == seen_) return;
  const bool first = seen_ == 0;
  seen_ = received;
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
void ServerSignals::report(const std::string& what) const {
  report_failure({what, "", -1, -1, collector_.first_unstored(), -1, true});
}

std::string ServerSignals::unstored_text() const {
  return "iteration " + std::to_string(collector_.first_unstored()) +
         " and every later one its clients handed over are not stored yet" +
         received_text(collector_.unstored_range());
}

// What the server does after a first signal, by when it came.
std::string ServerSignals::after_first_text() const {
  if (clients_stopped_) {
    return " after its clients stopped, while it stored what they handed over: " + unstored_text() +
           ". It stores on (this report is then replaced by the complete one); a second signal a "
           "second or more later ends it at once.";
  }
  return " while its clients ran: " + unstored_text() +
         ". It serves on until its clients stop (this report is then replaced by the complete "
         "one) or die (it then stores what they completed, says so here, and ends); a second "
         "signal a second or more later ends it at once.";
}

void ServerSignals::on_first() {
  const std::string what = "the " + who_ + " received " + signal_name(watch_.first()) +
                           " (a batch system's time limit, scancel, Ctrl-C)" + after_first_text();
  log_.warning(what);
  report(what);
}

void ServerSignals::on_second() {
  const std::string what = "the " + who_ + " received a second " + signal_name(watch_.first()) +
                           " and ends now: " + unstored_text() + ".";
  log_.error(what);
  report(what);
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
  const std::string what = "after " + name + " its clients died; the " + who_ +
                           " stored every iteration it received from all of them, and ends by "
                           "the signal: " +
                           unstored_text() +
                           " (this entry's first lost iteration replaces that of its entry at "
                           "the signal).";
  log_.warning(what);
  report(what);
  watch_.end();
}

}  // namespace ecluse
