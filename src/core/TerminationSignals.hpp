// The signals that end a job (SIGTERM from a batch system's time limit or scancel, SIGINT from
// Ctrl-C, SIGHUP), taken by a dedicated core or node while it serves (server/TerminationWatch):
// here in core so that the frequency restorer, which also handles them, chains with it.
#pragma once

#include <signal.h>

#include <chrono>
#include <string>

namespace ecluse {

/** Records SIGTERM, SIGINT and SIGHUP while it lives (one at a time, per serving loop) instead
 * of their action, except those the program ignores; puts the program's actions back when
 * destroyed. */
class TerminationWatch {
 public:
  /** `wake(arg)`, if given, is called in the signal handler to end the server's sleep: it must
   * be async-signal-safe (an atomic store and a futex wake, as EventQueue::interrupt). */
  using Wake = void (*)(void*);
  explicit TerminationWatch(Wake wake = nullptr, void* arg = nullptr);
  ~TerminationWatch();
  TerminationWatch(const TerminationWatch&) = delete;
  TerminationWatch& operator=(const TerminationWatch&) = delete;

  /** How many of them arrived since construction. */
  [[nodiscard]] int received() const noexcept;
  /** The first that arrived (0 for none). */
  [[nodiscard]] int first() const noexcept;
  /** Whether this watch took the signals (false: another one was alive and keeps them). */
  [[nodiscard]] bool owner() const noexcept { return owner_; }
  /** Sleeps until a signal arrives or cancel_wait() is called (or did since the last wait),
   * at most `timeout`: for one thread that acts on the signals while the one that serves is
   * busy (server/TerminationWatch). The handler wakes it (a futex: async-signal-safe). */
  void wait(std::chrono::milliseconds timeout) const;
  /** Ends the current or the next wait(): that thread is to stop. */
  void cancel_wait() const noexcept;
  /** Ends the process by the first signal: the termination hook (a frequency restore), the
   * program's action, then the default one. */
  [[noreturn]] void end() const;

 private:
  bool owner_;  // false: another watch was alive, and keeps watching
};

/** Whether `action` is the watch's handler: the frequency restorer does not put itself in front
 * of it (the watch's end runs the hook instead). */
bool is_termination_watch(const struct sigaction& action) noexcept;

/** Run by TerminationWatch::end before the signal ends the process (async-signal-safe). */
void set_termination_hook(void (*hook)()) noexcept;

/** "SIGTERM", "SIGINT", "SIGHUP", or "signal N". */
std::string signal_name(int signal_number);

}  // namespace ecluse
