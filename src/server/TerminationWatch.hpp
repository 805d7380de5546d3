// The signals that end a job (SIGTERM from a batch system's time limit or scancel, SIGINT from
// Ctrl-C, SIGHUP), seen by a dedicated core or node while it serves: it must not die at once
// with its clients' data in memory and no word of it (docs/reliability.md, "Signals").
#pragma once

#include <chrono>
#include <string>

namespace ecluse {

class BlockCollector;
class Log;

/** Records SIGTERM, SIGINT and SIGHUP while it lives (one per serving loop), instead of their
 * action; puts the program's actions back when destroyed. */
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
  /** Ends the process by the first signal: the program's action first (a frequency restore, a
   * handler of its own), then the default one. */
  [[noreturn]] void end() const;
};

/** "SIGTERM", "SIGINT", "SIGHUP", or "signal N". */
std::string signal_name(int signal_number);

/** A server's answer to those signals. At the first, it adds what it holds to the partial run
 * report (replaced by the complete report if its clients stop as usual) and watches its
 * clients closely: they usually die of the same signal, and then it stores what they completed
 * and ends by the signal. A second signal a second or more later ends it at once (sooner, it is
 * a launcher passing the first on). */
class ServerSignals {
 public:
  ServerSignals(std::string who, BlockCollector& collector, Log& log,
                TerminationWatch::Wake wake = nullptr, void* arg = nullptr);

  /** In the serving loop: acts on the signals that arrived since the last call. */
  void check();
  [[nodiscard]] bool signalled() const noexcept { return seen_ > 0; }
  /** How often to check the clients' processes: 1 s, 100 ms after a signal. */
  [[nodiscard]] std::chrono::milliseconds liveness_period() const noexcept;
  /** After a signal, the run failed (its clients died): waits for the store thread to store
   * the iterations they completed, then ends by the signal. */
  [[noreturn]] void end_after_failure();

 private:
  void report(const std::string& what) const;
  [[nodiscard]] std::string unstored_text() const;
  void on_first();
  [[noreturn]] void on_second();

  std::string who_;
  BlockCollector& collector_;
  Log& log_;
  TerminationWatch watch_;
  int seen_ = 0;
  std::chrono::steady_clock::time_point first_at_{};
};

}  // namespace ecluse
