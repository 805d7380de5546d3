// Termination signals while a server serves.
#include "server/TerminationWatch.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include "core/Log.hpp"
#include "core/RunFailure.hpp"
#include "server/BlockCollector.hpp"

namespace ecluse {

namespace {

constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP};
std::atomic<int> g_received{0};
std::atomic<int> g_first{0};
static_assert(std::atomic<int>::is_always_lock_free, "used in a signal handler");
std::atomic<TerminationWatch::Wake> g_wake{nullptr};
std::atomic<void*> g_wake_arg{nullptr};
struct sigaction g_previous[NSIG] = {};

void record(int signal_number) {
  const int saved_errno = errno;
  int none = 0;
  g_first.compare_exchange_strong(none, signal_number);
  g_received.fetch_add(1);
  if (const TerminationWatch::Wake wake = g_wake.load()) wake(g_wake_arg.load());
  errno = saved_errno;
}

void put_back() {
  for (const int s : kSignals) sigaction(s, &g_previous[s], nullptr);
  g_wake.store(nullptr);
}

}  // namespace

TerminationWatch::TerminationWatch(Wake wake, void* arg) {
  g_received.store(0);
  g_first.store(0);
  g_wake_arg.store(arg);
  g_wake.store(wake);
  struct sigaction action {};
  action.sa_handler = record;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (const int s : kSignals) sigaction(s, &action, &g_previous[s]);
}

TerminationWatch::~TerminationWatch() {
  put_back();
}

int TerminationWatch::received() const noexcept {
  return g_received.load();
}

int TerminationWatch::first() const noexcept {
  return g_first.load();
}

void TerminationWatch::end() const {
  const int s = first() != 0 ? first() : SIGTERM;
  put_back();
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, s);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  raise(s);  // the program's action (which may only note it: Python's SIGINT)
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(s, &fallback, nullptr);
  raise(s);
  _exit(128 + s);
}

std::string signal_name(int signal_number) {
  switch (signal_number) {
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "signal " + std::to_string(signal_number);
  }
}

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

void ServerSignals::on_first() {
  const std::string what =
      "the " + who_ + " received " + signal_name(watch_.first()) +
      " (a batch system's time limit, scancel, Ctrl-C) while its clients ran: " + unstored_text() +
      ". It serves on until its clients stop (this report is then replaced by the complete "
      "one) or die (it then stores what they completed, says so here, and ends); a second "
      "signal a second or more later ends it at once.";
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

void ServerSignals::end_after_failure() {
  const std::string name = signal_name(watch_.first());
  log_.warning("the " + who_ + " ends by " + name +
               " once it stored the iterations its clients completed.");
  collector_.wait_stored();
  const std::string what = "after " + name + " its clients died; the " + who_ +
                           " stored every iteration it received from all of them, and ends by "
                           "the signal: " +
                           unstored_text() +
                           " (this entry's lost iterations replace those of its entry at the "
                           "signal).";
  log_.warning(what);
  report(what);
  watch_.end();
}

}  // namespace ecluse
