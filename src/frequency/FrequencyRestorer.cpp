// The handler comes before the program's own action of each signal that ends a run: it
// restores, then does what that action would have done: calls the program's handler, ignores
// the signal if it was ignored, or resets the default action and raises the signal again, so
// that the process ends exactly as it would have without us.
#include "frequency/FrequencyRestorer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstring>

#include "core/TerminationSignals.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {
namespace {

std::atomic<FrequencyRestorer*> g_restorer{nullptr};
// The signals that end a run and let a handler run first: the batch system's (SIGTERM, SIGHUP),
// the user's (SIGINT, SIGQUIT), abort() (an assertion) and the faults (SIGSEGV, SIGBUS, SIGFPE,
// SIGILL: a crash). A library that catches a fault on purpose and recovers (its handler
// returns or jumps) still gets it, after a restore (the CPU runs at its own frequency until the
// rank's next lowering); a fault with the default action is raised again once the handler
// returns and ends the process as before.
constexpr int kSignals[] = {SIGINT,  SIGTERM, SIGHUP, SIGQUIT, SIGABRT,
                            SIGSEGV, SIGBUS,  SIGFPE, SIGILL};
struct sigaction g_previous[NSIG] = {};  // the program's action of each, kept to pass it on

bool ignored(const struct sigaction& action) {
  return (action.sa_flags & SA_SIGINFO) == 0 && action.sa_handler == SIG_IGN;
}

// A fault the kernel raised (si_code > 0, not kill or raise) is not ended by ignoring it: the
// kernel kills the process (returning would fault again).
bool fault(int signal_number, const siginfo_t* info) {
  const bool kind = signal_number == SIGSEGV || signal_number == SIGBUS ||
                    signal_number == SIGFPE || signal_number == SIGILL;
  return kind && info != nullptr && info->si_code > 0;
}

void pass_on(const struct sigaction& previous, int signal_number, siginfo_t* info, void* context) {
  if ((previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction != nullptr) {
    previous.sa_sigaction(signal_number, info, context);
    return;
  }
  if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN &&
      previous.sa_handler != nullptr) {
    previous.sa_handler(signal_number);
    return;
  }
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(signal_number, &fallback, nullptr);
  raise(signal_number);  // delivered with the default action once the handler returns
}

// An ignored signal ends nothing: the lowered settings stay, as the run goes on.
void restore_and_pass_on(int signal_number, siginfo_t* info, void* context) {
  const struct sigaction& previous = g_previous[signal_number];
  if (ignored(previous) && !fault(signal_number, info)) return;
  FrequencyRestorer* restorer = g_restorer.load();
  if (restorer != nullptr) restorer->restore_all();
  pass_on(previous, signal_number, info, context);
}

// In front of the program's action, which is kept to pass the signal on; again if the program
// replaced ours since (a handler it installed after initialize).
void install_in_front(int signal_number, struct sigaction& previous) {
  struct sigaction current {};
  sigaction(signal_number, nullptr, &current);
  if ((current.sa_flags & SA_SIGINFO) != 0 && current.sa_sigaction == restore_and_pass_on) return;
  // A serving dedicated core or node takes the job's ending signals (core/TerminationSignals)
  // and runs the termination hook (a restore) before it ends by one: in front of it, this
  // handler would keep its handler as the program's action once it is put back.
  if (is_termination_watch(current)) return;
  struct sigaction action {};
  action.sa_sigaction = restore_and_pass_on;
  // SA_ONSTACK: on the program's alternate stack if it has one (a stack overflow's SIGSEGV).
  action.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  sigaction(signal_number, &action, &previous);
}

void write_back(const char* path, const char* value, std::size_t size) noexcept {
  const int fd = ::open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return;
  const ssize_t ignored = ::write(fd, value, size);
  (void)ignored;
  ::close(fd);
}

}  // namespace

FrequencyRestorer& FrequencyRestorer::instance() {
  static FrequencyRestorer restorer;
  return restorer;
}

int FrequencyRestorer::new_owner() {
  return next_owner_.fetch_add(1);
}

void FrequencyRestorer::install_handlers() {
  g_restorer.store(this);
  set_termination_hook([] {
    if (FrequencyRestorer* restorer = g_restorer.load()) restorer->restore_all();
  });
  for (const int signal_number : kSignals)
    install_in_front(signal_number, g_previous[signal_number]);
}

void FrequencyRestorer::add(int owner, const std::string& path, const std::string& value) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::size_t index = count_.load();
  if (index >= kMaxEntries || path.size() >= kPathSize || value.size() > kValueSize) {
    throw Error(ECLUSE_ARGUMENT_ERROR,
                "cannot remember " + path + " for restoring on a signal (too many or too long)");
  }
  Entry& entry = entries_[index];
  std::memcpy(entry.path, path.c_str(), path.size() + 1);
  std::memcpy(entry.value, value.data(), value.size());
  entry.value_size = value.size();
  entry.owner.store(owner);  // published before the count that makes it visible
  count_.store(index + 1);
  if (index == 0) install_handlers();  // the first entry since all were restored
}

void FrequencyRestorer::remove(int owner) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::size_t count = count_.load();
  for (std::size_t i = 0; i < count; ++i) {
    if (entries_[i].owner.load() == owner) entries_[i].owner.store(0);
  }
  std::size_t top = count;
  while (top > 0 && entries_[top - 1].owner.load() == 0) --top;
  count_.store(top);
}

std::size_t FrequencyRestorer::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t live = 0;
  for (std::size_t i = 0; i < count_.load(); ++i) live += entries_[i].owner.load() != 0;
  return live;
}

void FrequencyRestorer::restore_all() noexcept {
  restores_.fetch_add(1);
  for (std::size_t i = count_.load(); i > 0; --i) {
    const Entry& entry = entries_[i - 1];
    if (entry.owner.load() != 0) write_back(entry.path, entry.value, entry.value_size);
  }
}

}  // namespace ecluse
