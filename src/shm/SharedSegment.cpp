// Shared-memory segments of the dedicated-core approach (named: POSIX shm; unnamed: memfd). The
// memory is reserved up front (posix_fallocate) so that a full /dev/shm is an error at start-up,
// not a SIGBUS mid-run.
#include "shm/SharedSegment.hpp"

#include <fcntl.h>
#include <sys/mman.h>  // memfd_create (glibc >= 2.27)
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <utility>

#include "core/Pages.hpp"
#include "ecluse/Error.hpp"

namespace ecluse::shm {

namespace {

constexpr mode_t kMode = 0600;  // only the job's user may map the simulation's data

std::string errno_text(int code) {
  return std::strerror(code);
}

std::string dev_shm_path(const std::string& name) {
  return "/dev/shm" + name;
}

// Named segments start with '/', unnamed ones never do (their label only shows in /proc).
bool named(const std::string& name) {
  return !name.empty() && name[0] == '/';
}

// Closes the descriptor and removes the half-made segment before an error is thrown.
[[noreturn]] void abandon(int fd, const std::string& name, ecluse_status status,
                          const std::string& message) {
  ::close(fd);
  if (named(name)) ::shm_unlink(name.c_str());
  throw Error(status, message);
}

void check_name(const std::string& name) {
  const bool valid = name.size() > 1 && name.size() <= 255 && name[0] == '/' &&
                     name.find('/', 1) == std::string::npos;
  if (!valid) {
    throw Error(ECLUSE_ARGUMENT_ERROR,
                "invalid shared-memory segment name '" + name +
                    "': it must start with '/', contain no other '/' and be at most 255 "
                    "characters; build it with ecluse::shm::segment_name()");
  }
}

std::string space_hint(const std::string& name) {
  if (!named(name)) {
    return "this host lacks the memory (or the memory cgroup limit is reached): lower the "
           "buffer size in the configuration";
  }
  struct statvfs fs {};
  if (::statvfs("/dev/shm", &fs) != 0) return "check the size of /dev/shm (df -h /dev/shm)";
  const auto unit = static_cast<unsigned long long>(fs.f_frsize);
  return "/dev/shm has " + std::to_string(fs.f_bavail * unit) + " bytes free of " +
         std::to_string(fs.f_blocks * unit) +
         ": lower the buffer size in the configuration or enlarge /dev/shm "
         "(mount -o remount,size=... /dev/shm)";
}

int create_exclusive(const std::string& name) {
  const int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, kMode);
  if (fd >= 0) return fd;
  const int code = errno;
  if (code == EEXIST) {
    throw Error(ECLUSE_ALLOCATION_ERROR,
                "cannot create shared-memory segment " + name + ": it already exists (" +
                    errno_text(code) +
                    "); another Ecluse job on this node uses the same name, or a crashed job "
                    "left it behind: if no such job is running, remove " +
                    dev_shm_path(name));
  }
  throw Error(ECLUSE_ALLOCATION_ERROR, "cannot create shared-memory segment " + name + ": " +
                                           errno_text(code) +
                                           "; check that /dev/shm is mounted "
                                           "and writable");
}

// shm_open applies the umask; fchmod makes the mode exactly 0600 whatever the umask is.
void enforce_mode(int fd, const std::string& name) {
  struct stat st {};
  if (::fchmod(fd, kMode) != 0 || ::fstat(fd, &st) != 0) {
    abandon(fd, name, ECLUSE_ALLOCATION_ERROR,
            "cannot make shared-memory segment " + name + " private to its user (mode 0600): " +
                errno_text(errno) + "; check the mount options of /dev/shm");
  }
  if ((st.st_mode & 0777) != kMode) {
    abandon(fd, name, ECLUSE_ALLOCATION_ERROR,
            "shared-memory segment " + name + " got mode " + std::to_string(st.st_mode & 0777) +
                " (decimal) instead of 0600; check the mount options and ACLs of /dev/shm");
  }
}

void reserve(int fd, const std::string& name, std::size_t size) {
  const auto length = static_cast<off_t>(size);
  if (::ftruncate(fd, length) != 0) {
    abandon(fd, name, ECLUSE_ALLOCATION_ERROR,
            "cannot size shared-memory segment " + name + " to " + std::to_string(size) +
                " bytes: " + errno_text(errno) + "; " + space_hint(name));
  }
  if (const int code = ::posix_fallocate(fd, 0, length); code != 0) {
    abandon(fd, name, ECLUSE_ALLOCATION_ERROR,
            "cannot reserve " + std::to_string(size) + " bytes for shared-memory segment " + name +
                ": " + errno_text(code) + "; " + space_hint(name));
  }
}

void* map(int fd, std::size_t size) {
  void* base = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return base == MAP_FAILED ? nullptr : base;
}

}  // namespace

SharedSegment SharedSegment::create(const std::string& name, std::size_t size) {
  check_name(name);
  if (size == 0 || size > static_cast<std::size_t>(std::numeric_limits<off_t>::max())) {
    throw Error(ECLUSE_ARGUMENT_ERROR, "cannot create shared-memory segment " + name + " of " +
                                           std::to_string(size) +
                                           " bytes: the size must be positive and fit in off_t");
  }
  const int fd = create_exclusive(name);
  enforce_mode(fd, name);
  reserve(fd, name, size);
  void* base = map(fd, size);
  if (base == nullptr) {
    abandon(fd, name, ECLUSE_ALLOCATION_ERROR,
            "cannot map shared-memory segment " + name + " (" + std::to_string(size) +
                " bytes): " + errno_text(errno) + "; check the address-space limit (ulimit -v)");
  }
  ::close(fd);  // the mapping keeps the memory alive
  return SharedSegment(name, base, size, true);
}

SharedSegment SharedSegment::create_unnamed(const std::string& label, std::size_t size) {
  if (size == 0 || size > static_cast<std::size_t>(std::numeric_limits<off_t>::max())) {
    throw Error(ECLUSE_ARGUMENT_ERROR, "cannot create shared-memory segment " + label + " of " +
                                           std::to_string(size) +
                                           " bytes: the size must be positive and fit in off_t");
  }
  if (named(label)) {
    throw Error(ECLUSE_ARGUMENT_ERROR,
                "the label of an unnamed segment may not start with '/' ('" + label + "')");
  }
  const int fd = ::memfd_create(label.c_str(), MFD_CLOEXEC);
  if (fd < 0) {
    throw Error(ECLUSE_ALLOCATION_ERROR, "cannot create shared-memory segment " + label +
                                             " (memfd_create): " + errno_text(errno) +
                                             "; Linux 3.17 or later is needed");
  }
  enforce_mode(fd, label);
  reserve(fd, label, size);
  void* base = map(fd, size);
  if (base == nullptr) {
    abandon(fd, label, ECLUSE_ALLOCATION_ERROR,
            "cannot map shared-memory segment " + label + " (" + std::to_string(size) +
                " bytes): " + errno_text(errno) + "; check the address-space limit (ulimit -v)");
  }
  return SharedSegment(label, base, size, true, fd);
}

SharedSegment SharedSegment::open(const std::string& name) {
  check_name(name);
  const int fd = ::shm_open(name.c_str(), O_RDWR, 0);
  if (fd < 0) {
    throw Error(ECLUSE_CHANNEL_ERROR,
                "cannot open shared-memory segment " + name + ": " + errno_text(errno) +
                    "; the dedicated core of this node has not created it yet, or has already "
                    "removed it (did it fail to start?)");
  }
  return map_opened(fd, name);
}

SharedSegment SharedSegment::open_path(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    throw Error(ECLUSE_CHANNEL_ERROR,
                "cannot open the dedicated core's shared-memory segment " + path + ": " +
                    errno_text(errno) +
                    "; the dedicated core of this node died or closed it, or this process may "
                    "not read /proc of that process (same user, and not in another PID "
                    "namespace, are needed)");
  }
  return map_opened(fd, path);
}

SharedSegment SharedSegment::map_opened(int fd, const std::string& name) {
  struct stat st {};
  const bool sized = ::fstat(fd, &st) == 0 && st.st_size > 0;
  void* base = sized ? map(fd, static_cast<std::size_t>(st.st_size)) : nullptr;
  const int code = errno;
  ::close(fd);
  if (base == nullptr) {
    throw Error(ECLUSE_CHANNEL_ERROR,
                "cannot map shared-memory segment " + name + ": " +
                    (sized ? errno_text(code) : std::string("it is still empty")) +
                    "; clients must open it only after the dedicated core has created it");
  }
  return SharedSegment(name, base, static_cast<std::size_t>(st.st_size), false);
}

SharedSegment::SharedSegment(std::string name, void* base, std::size_t size, bool owner, int fd)
    : name_(std::move(name)), base_(base), size_(size), owner_(owner), linked_(true), fd_(fd) {}

SharedSegment::SharedSegment(SharedSegment&& other) noexcept
    : name_(std::move(other.name_)),
      base_(std::exchange(other.base_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      owner_(std::exchange(other.owner_, false)),
      linked_(std::exchange(other.linked_, false)),
      fd_(std::exchange(other.fd_, -1)) {}

SharedSegment& SharedSegment::operator=(SharedSegment&& other) noexcept {
  if (this != &other) {
    SharedSegment old(std::move(*this));  // releases our current mapping on scope exit
    name_ = std::move(other.name_);
    base_ = std::exchange(other.base_, nullptr);
    size_ = std::exchange(other.size_, 0);
    owner_ = std::exchange(other.owner_, false);
    linked_ = std::exchange(other.linked_, false);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

SharedSegment::~SharedSegment() {
  if (base_ != nullptr) ::munmap(base_, size_);
  if (fd_ >= 0) {
    ::close(fd_);
  } else if (owner_ && linked_) {
    ::shm_unlink(name_.c_str());
  }
}

std::string SharedSegment::path() const {
  if (fd_ < 0) return {};
  return "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(fd_);
}

void SharedSegment::unlink() {
  if (!linked_) return;
  linked_ = false;
  if (fd_ >= 0) {
    ::close(std::exchange(fd_, -1));
    return;
  }
  // ENOENT: another process (server or client) removed the name first, which is the goal.
  if (::shm_unlink(name_.c_str()) != 0 && errno != ENOENT) {
    throw Error(ECLUSE_CHANNEL_ERROR, "cannot remove shared-memory segment " + name_ + ": " +
                                          errno_text(errno) + "; remove " + dev_shm_path(name_) +
                                          " by hand");
  }
}

std::string segment_name(const std::string& job, int node, const std::string& tag) {
  auto clean = [](std::string text) {
    for (char& c : text) {
      const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '-';
      if (!ok) c = '_';
    }
    return text;
  };
  return "/ecluse-" + clean(job) + "-" + std::to_string(node) + "-" + clean(tag);
}

void SharedSegment::prefault() const {
  const int error = populate_pages(base_, size_, true);
  if (error == 0) return;
  throw Error(ECLUSE_ALLOCATION_ERROR,
              "cannot prefault the " + std::to_string(size_) + " bytes of shared segment '" +
                  name_ + "': " + std::strerror(error) +
                  "; the node lacks the memory for the buffer: lower <buffer size>, or set "
                  "<buffer prefault=\"false\"> to map its pages at first use");
}

}  // namespace ecluse::shm
