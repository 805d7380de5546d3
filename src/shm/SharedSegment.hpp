// A shared-memory segment: named (POSIX shm, /dev/shm) or unnamed (memfd, opened by the other
// processes of the host through /proc/<pid>/fd/<fd> of its creator: nothing to leave behind).
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
  /** memfd_create + mode 0600 + reserved + mapped: the segment never has a name in /dev/shm,
   * so no kill at any point can leave it behind. Processes of this host open it by path()
   * (/proc/<pid>/fd/<fd>) until unlink() closes that descriptor. `label` (not starting with
   * '/') shows in /proc/<pid>/maps. Throws like create. */
  static SharedSegment create_unnamed(const std::string& label, std::size_t size);
  /** Opens and maps the unnamed segment at `path` (another process's path()); throws
   * Error(ECLUSE_CHANNEL_ERROR). */
  static SharedSegment open_path(const std::string& path);
  SharedSegment(SharedSegment&&) noexcept;
  SharedSegment& operator=(SharedSegment&&) noexcept;
  SharedSegment(const SharedSegment&) = delete;
  SharedSegment& operator=(const SharedSegment&) = delete;
  ~SharedSegment();  // munmap (and unlink if still linked and we created it)

  /** Removes the name from /dev/shm (named) or closes the descriptor behind path() (unnamed);
   * mappings stay valid until every process unmaps or dies. */
  void unlink();
  /** Where other processes of the host open an unnamed segment ("" for a named one). */
  [[nodiscard]] std::string path() const;
  [[nodiscard]] void* base() const { return base_; }
  [[nodiscard]] std::size_t size() const { return size_; }
  /** Maps every page of the segment in this process now (allocating those not yet allocated),
   * so that later accesses do not fault; the contents are unchanged. */
  void prefault() const;
  [[nodiscard]] const std::string& name() const { return name_; }

 private:
  SharedSegment(std::string name, void* base, std::size_t size, bool owner, int fd = -1);
  static SharedSegment map_opened(int fd, const std::string& name);
  std::string name_;
  void* base_ = nullptr;
  std::size_t size_ = 0;
  bool owner_ = false;
  bool linked_ = false;
  int fd_ = -1;  // an unnamed segment's descriptor, open until unlink()
};

/** A name unique to this job and node: "/ecluse-<job>-<node>-<tag>". `job` must be the same on
 * every rank (e.g. broadcast from rank 0: pid and start time). */
std::string segment_name(const std::string& job, int node, const std::string& tag);

}  // namespace ecluse::shm
