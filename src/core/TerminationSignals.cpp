// Termination signals while a server serves.
#include "core/TerminationSignals.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>

#include "core/Wakeup.hpp"

namespace ecluse {

namespace {

constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP};
std::atomic<int> g_received{0};
std::atomic<int> g_first{0};
std::atomic<bool> g_active{false};
std::atomic<TerminationWatch::Wake> g_wake{nullptr};
std::atomic<void*> g_wake_arg{nullptr};
std::atomic<void (*)()> g_hook{nullptr};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<void*>::is_always_lock_free &&
                  std::atomic<TerminationWatch::Wake>::is_always_lock_free,
              "used in a signal handler");
constinit Wakeup g_arrived;  // static storage: a handler never finds it gone
struct sigaction g_previous[NSIG] = {};
bool g_installed[NSIG] = {};

void record(int signal_number) {
  const int saved_errno = errno;
  int none = 0;
  g_first.compare_exchange_strong(none, signal_number);
  g_received.fetch_add(1);
  if (const TerminationWatch::Wake wake = g_wake.load()) wake(g_wake_arg.load());
  g_arrived.notify();
  errno = saved_errno;
}

bool ignored(const struct sigaction& action) {
  return (action.sa_flags & SA_SIGINFO) == 0 && action.sa_handler == SIG_IGN;
}

// Only where the watch's handler is still the action: one installed in front of it since keeps
// its place (it passes the signal on to what it found).
void put_back() {
  for (const int s : kSignals) {
    if (!g_installed[s]) continue;
    g_installed[s] = false;
    struct sigaction current {};
    sigaction(s, nullptr, &current);
    if (is_termination_watch(current)) sigaction(s, &g_previous[s], nullptr);
  }
  g_wake.store(nullptr);
  g_active.store(false);
}

}  // namespace

bool is_termination_watch(const struct sigaction& action) noexcept {
  return (action.sa_flags & SA_SIGINFO) == 0 && action.sa_handler == record;
}

void set_termination_hook(void (*hook)()) noexcept {
  g_hook.store(hook);
}

TerminationWatch::TerminationWatch(Wake wake, void* arg) : owner_(!g_active.exchange(true)) {
  if (!owner_) return;  // one at a time: the first keeps watching
  g_received.store(0);
  g_first.store(0);
  g_wake_arg.store(arg);
  g_wake.store(wake);
  struct sigaction action {};
  action.sa_handler = record;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (const int s : kSignals) {
    struct sigaction current {};
    sigaction(s, nullptr, &current);
    if (ignored(current)) continue;  // nohup, a background job's SIGINT: still ignored
    g_previous[s] = current;
    g_installed[s] = sigaction(s, &action, nullptr) == 0;
  }
}

TerminationWatch::~TerminationWatch() {
  if (owner_) put_back();
}

int TerminationWatch::received() const noexcept {
  return g_received.load();
}

int TerminationWatch::first() const noexcept {
  return g_first.load();
}

void TerminationWatch::wait(std::chrono::milliseconds timeout) const {
  g_arrived.sleep_for(timeout);
}

void TerminationWatch::cancel_wait() const noexcept {
  g_arrived.notify();
}

void TerminationWatch::end() const {
  const int s = first() != 0 ? first() : SIGTERM;
  if (void (*hook)() = g_hook.load()) hook();
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

}  // namespace ecluse
