// The store thread's two stages: one job at a time, in order; results wait for the server's
// thread.
#include "server/StoreThread.hpp"

#include <pthread.h>

#include <utility>

namespace ecluse {

StoreThread::StoreThread(Writer& writer, std::function<void()> stored)
    : writer_(writer),
      stored_(std::move(stored)),
      completer_([this] { run_completions(); }),
      thread_([this] { run_stores(); }) {}

StoreThread::~StoreThread() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_.notify_one();
  thread_.join();  // stores what it holds first
  complete_.notify_one();
  completer_.join();
}

void StoreThread::submit(int iteration, std::vector<BlockData> blocks) {
  {
    const std::lock_guard lock(mutex_);
    jobs_.push_back({iteration, std::move(blocks)});
  }
  work_.notify_one();
}

std::vector<Writer::StoredIteration> StoreThread::take_done() {
  const std::lock_guard lock(mutex_);
  return std::exchange(done_, {});
}

bool StoreThread::idle() const {
  return jobs_.empty() && !storing_ && written_.empty() && !completing_;
}

void StoreThread::wait_idle() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return idle(); });
}

bool StoreThread::wait_idle_for(std::chrono::milliseconds period) {
  std::unique_lock lock(mutex_);
  return idle_.wait_for(lock, period, [this] { return idle(); });
}

// Writer::store catches the stores' errors, so nothing escapes the thread but bad_alloc,
// which terminates as it would on the server's thread.
void StoreThread::run_stores() {
  pthread_setname_np(pthread_self(), "ecluse-store");  // for top -H, perf and gdb
  std::unique_lock lock(mutex_);
  for (;;) {
    work_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // stopping, and everything stored
    Job job = std::move(jobs_.front());
    jobs_.pop_front();
    storing_ = true;
    lock.unlock();
    Writer::StoredIteration stored = writer_.store(job.iteration, job.blocks);
    stored.off_thread = true;
    lock.lock();
    storing_ = false;
    // Nothing left to complete and nothing before it: done here, without a hand-over.
    if (stored.pending.empty() && written_.empty() && !completing_) {
      deliver(lock, std::move(stored));
      continue;
    }
    written_.push_back(std::move(stored));
    complete_.notify_one();
  }
}

// Completes the iterations in the order stored; Writer::complete catches the stores' errors.
void StoreThread::run_completions() {
  pthread_setname_np(pthread_self(), "ecluse-complete");
  std::unique_lock lock(mutex_);
  for (;;) {
    complete_.wait(
        lock, [this] { return !written_.empty() || (stopping_ && jobs_.empty() && !storing_); });
    if (written_.empty()) return;  // stopping, and everything completed
    Writer::StoredIteration stored = std::move(written_.front());
    written_.pop_front();
    completing_ = true;
    lock.unlock();
    Writer::complete(stored);
    lock.lock();
    completing_ = false;
    deliver(lock, std::move(stored));
  }
}

// Under the lock: the iteration is done; wakes wait_idle, then the server's thread.
void StoreThread::deliver(std::unique_lock<std::mutex>& lock, Writer::StoredIteration stored) {
  done_.push_back(std::move(stored));
  if (idle()) idle_.notify_all();
  if (stored_) {
    lock.unlock();
    stored_();
    lock.lock();
  }
}

}  // namespace ecluse
