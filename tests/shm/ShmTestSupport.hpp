// Helpers of the shared-memory tests: per-test segment names, a fixture that checks /dev/shm is
// left clean, forked children that report through their exit code, and a monotonic clock.
#pragma once

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <ctime>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "shm/BufferAllocator.hpp"
#include "shm/SharedSegment.hpp"

namespace ecluse::shm::test {

/** The job part of every segment name made by this test process. */
inline std::string job() {
  return "t" + std::to_string(::getpid());
}

/** What segment_name() makes of the current test's name (the unique per-test tag). */
inline std::string test_tag() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string name = std::string(info->test_suite_name()) + "_" + info->name();
  const std::string full = segment_name("x", 0, name);
  return full.substr(std::string("/ecluse-x-0-").size());
}

/** A segment name unique to this process and test; `what` tells segments of one test apart. */
inline std::string unique_name(const std::string& what = "seg") {
  return segment_name(job(), 0, test_tag() + "-" + what);
}

/** Entries of /dev/shm whose name starts with `prefix`. */
inline std::vector<std::string> dev_shm_entries(const std::string& prefix) {
  std::vector<std::string> found;
  DIR* dir = ::opendir("/dev/shm");
  if (dir == nullptr) return found;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.rfind(prefix, 0) == 0) found.push_back(name);
  }
  ::closedir(dir);
  return found;
}

/** Fails a test that leaves one of its segments in /dev/shm (and removes it). The check runs in
 * the destructor, after the segments held by derived fixtures are gone. */
class ShmTest : public ::testing::Test {
 protected:
  ~ShmTest() override {
    const auto left = dev_shm_entries(prefix_);
    for (const auto& name : left) ::shm_unlink(("/" + name).c_str());
    EXPECT_TRUE(left.empty()) << "left in /dev/shm: " << left.front();
  }

 private:
  std::string prefix_ = unique_name("").substr(1);
};

/** Runs `body` in a forked child that exits with its return value (100 on an exception). The
 * child touches only shared memory and calls _exit: no MPI, no gtest, no destructors. */
template <class Body>
pid_t spawn(Body body) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  int code = 100;
  try {
    code = body();
  } catch (...) {
    code = 100;
  }
  ::_exit(code);
}

/** The exit code of a child, or 128 + signal if it was killed. */
inline int wait_child(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

inline std::uint64_t now_ns(clockid_t clock = CLOCK_MONOTONIC) {
  timespec ts{};
  ::clock_gettime(clock, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

/** Bytes a block of `bytes` takes in either allocator: a 64-byte header plus the payload
 * rounded up to 64 (what used() counts). */
inline std::uint64_t footprint(std::uint64_t bytes) {
  return 64 + (bytes + 63) / 64 * 64;
}

/** The allocator kind a test parameter names ("general" or "partitioned"). */
inline AllocatorKind kind_of(const std::string& kind) {
  return kind == "general" ? AllocatorKind::General : AllocatorKind::Partitioned;
}

/** The allocator of `kind` over [base + offset, + size). */
inline std::unique_ptr<BufferAllocator> make_allocator(const std::string& kind, void* base,
                                                       std::size_t offset, std::size_t size,
                                                       int clients, bool init) {
  return shm::make_allocator(kind_of(kind), base, offset, size, clients, init);
}

/** A segment holding `lead` bytes (e.g. queues), then an allocator sized for `data` bytes. */
struct Buffer {
  SharedSegment segment;
  std::size_t offset;
  std::size_t size;
  std::unique_ptr<BufferAllocator> allocator;
  [[nodiscard]] char* at(Handle h) const { return static_cast<char*>(segment.base()) + h; }
};

inline Buffer make_buffer(const std::string& kind, int clients, std::size_t data,
                          std::size_t lead = 0) {
  const std::size_t size = allocator_overhead(kind_of(kind), clients) + data;
  auto segment = SharedSegment::create(unique_name(kind), lead + size);
  auto allocator = make_allocator(kind, segment.base(), lead, size, clients, true);
  return Buffer{std::move(segment), lead, size, std::move(allocator)};
}

}  // namespace ecluse::shm::test
