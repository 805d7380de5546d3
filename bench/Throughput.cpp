// The raw baseline, the in-process store, and the reset shared by the throughput benchmarks.
#include "Throughput.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

#include "BenchSupport.hpp"
#include "ecluse/ecluse.h"

namespace ecluse::bench {

namespace {

void write_all(int fd, const char* data, std::uint64_t bytes, const std::string& path) {
  while (bytes > 0) {
    const ssize_t n = ::write(fd, data, bytes);
    if (n <= 0) fail("write to " + path + " failed");
    data += n;
    bytes -= static_cast<std::uint64_t>(n);
  }
}

void raw_file(const ThroughputRun& run, const char* bytes, const std::string& path, bool fsync,
              RawKind kind) {
  const std::string part = kind == RawKind::LikeStore ? path + ".part" : path;
  const int fd = ::open(part.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create " + part);
  const auto size = static_cast<off_t>(run.bytes);
  if (kind == RawKind::LikeStore) ::fallocate(fd, 0, 0, size + (80 << 10));
  for (std::uint64_t done = 0; done < run.bytes; done += run.chunk) {
    write_all(fd, bytes + done, std::min(run.chunk, run.bytes - done), part);
  }
  if (kind == RawKind::LikeStore && ::ftruncate(fd, size) != 0) fail("ftruncate failed");
  ::close(fd);
  if (kind == RawKind::LikeStore && std::rename(part.c_str(), path.c_str()) != 0) {
    fail("rename failed");
  }
  if (fsync && !fsync_path(path)) fail("fsync of " + path + " failed");
}

/** Fsyncs the files it is given, in order, on a thread of its own. */
class FsyncThread {
 public:
  FsyncThread() : thread_([this] { run(); }) {}
  ~FsyncThread() {
    {
      const std::lock_guard lock(mutex_);
      done_ = true;
    }
    ready_.notify_one();
    thread_.join();
    if (failed_) fail("fsync failed");
  }
  FsyncThread(const FsyncThread&) = delete;
  FsyncThread& operator=(const FsyncThread&) = delete;
  void add(std::string path) {
    {
      const std::lock_guard lock(mutex_);
      paths_.push_back(std::move(path));
    }
    ready_.notify_one();
  }

 private:
  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      ready_.wait(lock, [this] { return done_ || !paths_.empty(); });
      if (paths_.empty()) return;
      const std::string path = std::move(paths_.front());
      paths_.pop_front();
      lock.unlock();
      const bool ok = fsync_path(path);
      lock.lock();
      failed_ = failed_ || !ok;
    }
  }
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::string> paths_;
  bool done_ = false, failed_ = false;
  std::thread thread_;
};

double pipelined_write(const ThroughputRun& run, const char* bytes, bool fsync) {
  const auto t0 = Clock::now();
  {
    FsyncThread syncer;
    for (int it = 0; it < run.iterations; ++it) {
      const std::string path = run.dir + "/raw_It" + std::to_string(it) + ".dat";
      raw_file(run, bytes, path, false, RawKind::Plain);
      if (fsync) syncer.add(path);
    }
  }
  return seconds_between(t0, Clock::now());
}

}  // namespace

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

double raw_write(const ThroughputRun& run, const std::vector<double>& data, bool fsync,
                 RawKind kind) {
  double seconds = 0;
  if (world_rank() == 0) {
    const char* bytes = reinterpret_cast<const char*>(data.data());
    if (kind == RawKind::Pipelined) {
      seconds = pipelined_write(run, bytes, fsync);
      sleepy_barrier(MPI_COMM_WORLD);
      return seconds;
    }
    const auto t0 = Clock::now();
    for (int it = 0; it < run.iterations; ++it) {
      raw_file(run, bytes, run.dir + "/raw_It" + std::to_string(it) + ".dat", fsync, kind);
    }
    seconds = seconds_between(t0, Clock::now());
  }
  sleepy_barrier(MPI_COMM_WORLD);
  return seconds;
}

double tp_store_write(const ThroughputRun& run, const std::string& xml,
                      const std::string& simulation, const std::vector<double>& data, bool fsync) {
  double seconds = 0;
  if (world_rank() == 0) {
    check(ecluse_initialize_string(xml.c_str(), MPI_COMM_SELF), "initialize");
    int is_client = 0;
    check(ecluse_start(&is_client), "ecluse_start");
    const auto t0 = Clock::now();
    for (int it = 0; it < run.iterations; ++it) {
      check(ecluse_write("field", data.data()), "ecluse_write");
      check(ecluse_end_iteration(), "ecluse_end_iteration");
      if (fsync && !fsync_path(stored_file(run.dir, simulation, it, 0))) fail("fsync failed");
    }
    check(ecluse_stop(), "ecluse_stop");
    check(ecluse_finalize(), "ecluse_finalize");
    seconds = seconds_between(t0, Clock::now());
  }
  sleepy_barrier(MPI_COMM_WORLD);
  return seconds;
}

void reset(const std::string& dir) {
  if (world_rank() == 0) {
    remove_files(dir);
    sync_directory(dir);
  }
  sleepy_barrier(MPI_COMM_WORLD);
}

ScopedEnv::ScopedEnv(const char* name, const char* value) : name_(name) {
  if (const char* old = std::getenv(name)) {
    had_ = true;
    previous_ = old;
  }
  ::setenv(name, value, 1);
}

ScopedEnv::~ScopedEnv() {
  if (had_) {
    ::setenv(name_.c_str(), previous_.c_str(), 1);
  } else {
    ::unsetenv(name_.c_str());
  }
}

}  // namespace ecluse::bench
