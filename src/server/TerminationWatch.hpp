// A dedicated core's or node's answer to the signals that end a job (core/TerminationSignals):
// it must not die at once with its clients' data in memory and no word of it
// (docs/reliability.md, "Signals").
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "core/TerminationSignals.hpp"
#include "server/BlockCollector.hpp"

namespace ecluse {

class Log;

/** A server's answer to those signals. At the first, it adds what it holds to the partial run
 * report (replaced by the complete report if its clients stop as usual) and watches its
 * clients closely: they usually die of the same signal, and then it stores what they completed
 * and ends by the signal. A second signal a second or more later ends it at once (sooner, it is
 * a launcher passing the first on). A thread of its own (`ecluse-signals`, woken by the handler)
 * acts on them too: the server's thread may be in a script, an action or a store for longer than
 * the launcher waits before SIGKILL. Whichever comes first writes an entry, once. */
class ServerSignals {
 public:
  ServerSignals(std::string who, BlockCollector& collector, Log& log,
                TerminationWatch::Wake wake = nullptr, void* arg = nullptr);
  ~ServerSignals();
  ServerSignals(const ServerSignals&) = delete;
  ServerSignals& operator=(const ServerSignals&) = delete;

  /** In the serving loop, every 100 ms while the backlog is stored after the clients stopped,
   * and on the signals' thread: acts on the signals that arrived since the last call. */
  void check();
  /** Every client stopped: a first signal from now on is one received while the server stores
   * what they handed over (its entry says so); the server stores on. */
  void clients_stopped() noexcept { clients_stopped_.store(true); }
  /** A signal arrived (check() may not have acted on it yet). */
  [[nodiscard]] bool signalled() const noexcept { return watch_.received() > 0; }
  /** How often to check the clients' processes: 1 s, 100 ms after a signal. */
  [[nodiscard]] std::chrono::milliseconds liveness_period() const noexcept;
  /** After a signal, the run failed (its clients died): acts on the signal if check() did not
   * yet, takes in what already arrived (`drain`: the queue, MPI's received messages), waits for
   * the store thread to store the iterations its clients completed, then ends by the signal. */
  [[noreturn]] void end_after_failure(const std::function<void()>& drain);

 private:
  using Unstored = BlockCollector::Unstored;
  void report(const std::string& what, const Unstored& unstored) const;
  [[nodiscard]] static std::string unstored_text(const Unstored& unstored);
  [[nodiscard]] std::string after_first_text(const Unstored& unstored) const;
  void on_first();
  [[noreturn]] void on_second();
  void start_thread();
  void watch();

  std::string who_;
  BlockCollector& collector_;
  Log& log_;
  std::mutex mutex_;          // one thread acts at a time; guards first_at_
  std::atomic<int> seen_{0};  // written under mutex_; read without it for the fast path
  std::atomic<bool> clients_stopped_{false};
  std::atomic<bool> stopping_{false};
  std::chrono::steady_clock::time_point first_at_{};
  TerminationWatch watch_;
  std::thread thread_;  // joined before watch_ puts the program's actions back
};

}  // namespace ecluse
