// A server's store thread: stores complete iterations while the server's own thread keeps
// receiving the next ones (double buffering). It runs only Writer::store, which then makes no
// MPI call; releasing blocks, events, the log and the accounting stay on the server's thread.
// What a store leaves pending (Sync="yes": a file's fsync and rename) runs on a second thread,
// the completion thread, while the store thread writes the next iteration; an iteration with
// nothing pending and nothing ahead of it is done on the store thread itself.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "writer/Writer.hpp"

namespace ecluse {

class StoreThread {
 public:
  /** `stored`, if set, is called after each iteration is stored and completed (outside the
   * lock, on the thread that finished it): it wakes the server's thread, which then collects
   * it at once. */
  explicit StoreThread(Writer& writer, std::function<void()> stored = {});
  /** Stores and completes what was submitted, then joins. */
  ~StoreThread();
  StoreThread(const StoreThread&) = delete;
  StoreThread& operator=(const StoreThread&) = delete;

  /** Queues an iteration; its blocks' data must stay valid until take_done() returned it. */
  void submit(int iteration, std::vector<BlockData> blocks);
  /** The iterations stored since the last call, in the order submitted (never blocks). */
  [[nodiscard]] std::vector<Writer::StoredIteration> take_done();
  /** Waits until every submitted iteration is stored and completed. */
  void wait_idle();
  /** wait_idle for at most `period`: whether it is idle. */
  bool wait_idle_for(std::chrono::milliseconds period);

 private:
  struct Job {
    int iteration;
    std::vector<BlockData> blocks;
  };
  void run_stores();
  void run_completions();
  [[nodiscard]] bool idle() const;
  void deliver(std::unique_lock<std::mutex>& lock, Writer::StoredIteration stored);

  Writer& writer_;
  std::function<void()> stored_;
  std::mutex mutex_;
  std::condition_variable work_;      // a job or the stop
  std::condition_variable complete_;  // a stored iteration to complete, or the stop
  std::condition_variable idle_;      // both stages ran empty
  std::deque<Job> jobs_;
  std::deque<Writer::StoredIteration> written_;  // stored, waiting for their completion
  std::vector<Writer::StoredIteration> done_;
  bool storing_ = false, completing_ = false;
  bool stopping_ = false;
  std::thread completer_;  // last two: start once the rest is built
  std::thread thread_;
};

}  // namespace ecluse
