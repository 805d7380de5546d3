// A POSIX shared-memory segment: created by a node's first server, opened by its clients.
#pragma once

#include <cstddef>
#include <string>

namespace ecluse::shm {

class SharedSegment {
 public:
  /** shm_open(O_CREAT|O_EXCL, 0600) + ftruncate + mmap; throws Error(ECLUSE_ALLOCATION_ERROR)
   * with the name, size and strerror (and a hint about /dev/shm size) on failure. */
  static SharedSegment create(const std::string& name, std::size_t size);
  /** Opens and maps an existing segment; throws Error(ECLUSE_CHANNEL_ERROR). */
  static SharedSegment open(const std::string& name);
  SharedSegment(SharedSegment&&) noexcept;
  SharedSegment& operator=(SharedSegment&&) noexcept;
  SharedSegment(const SharedSegment&) = delete;
  SharedSegment& operator=(const SharedSegment&) = delete;
  ~SharedSegment();  // munmap (and unlink if still linked and we created it)

  /** Removes the name from /dev/shm; mappings stay valid until every process unmaps or dies,
   * so a crashed job leaves nothing behind once every process has opened the segment. */
  void unlink();
  [[nodiscard]] void* base() const { return base_; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] const std::string& name() const { return name_; }

 private:
  SharedSegment(std::string name, void* base, std::size_t size, bool owner);
  std::string name_;
  void* base_ = nullptr;
  std::size_t size_ = 0;
  bool owner_ = false;
  bool linked_ = false;
};

/** A name unique to this job and node: "/ecluse-<job>-<node>-<tag>". `job` must be the same on
 * every rank (e.g. broadcast from rank 0: pid and start time). */
std::string segment_name(const std::string& job, int node, const std::string& tag);

}  // namespace ecluse::shm
