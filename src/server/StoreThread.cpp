// The store thread's queue: one job at a time, in order; results wait for the server's thread.
#include "server/StoreThread.hpp"

#include <pthread.h>

#include <utility>

namespace ecluse {

StoreThread::StoreThread(Writer& writer, std::function<void()> stored)
    : writer_(writer), stored_(std::move(stored)), thread_([this] { run(); }) {}

StoreThread::~StoreThread() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_.notify_one();
  thread_.join();
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

void StoreThread::wait_idle() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return jobs_.empty() && !storing_; });
}

// Writer::store catches the stores' errors, so nothing escapes the thread but bad_alloc,
// which terminates as it would on the server's thread.
void StoreThread::run() {
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
    lock.lock();
    done_.push_back(std::move(stored));
    storing_ = false;
    if (jobs_.empty()) idle_.notify_all();
    if (stored_) {
      lock.unlock();
      stored_();
      lock.lock();
    }
  }
}

}  // namespace ecluse
