// SharedSegment: creation, sharing with another process, 0600 mode, unlink semantics and the
// messages a user sees when the name is taken or /dev/shm is too small.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <cstring>
#include <vector>

#include "ShmTestSupport.hpp"
#include "ecluse/Error.hpp"
#include "shm/SharedSegment.hpp"

namespace ecluse::shm {
namespace {

using test::dev_shm_entries;
using test::unique_name;

class SegmentTest : public test::ShmTest {};

bool in_dev_shm(const std::string& name) {
  struct stat st {};
  return ::stat(("/dev/shm" + name).c_str(), &st) == 0;
}

TEST_F(SegmentTest, CreateThenOpenShareTheSameBytes) {
  auto server = SharedSegment::create(unique_name(), 1 << 20);
  ASSERT_EQ(server.size(), 1u << 20);
  std::memset(server.base(), 0x5a, 4096);
  auto client = SharedSegment::open(server.name());
  ASSERT_EQ(client.size(), server.size());
  EXPECT_NE(client.base(), server.base());
  EXPECT_EQ(static_cast<unsigned char*>(client.base())[4095], 0x5a);
  static_cast<char*>(client.base())[100] = 'c';
  EXPECT_EQ(static_cast<char*>(server.base())[100], 'c');
}

TEST_F(SegmentTest, ForkedProcessOpensAndWrites) {
  auto server = SharedSegment::create(unique_name(), 4096);
  const auto name = server.name();
  const pid_t child = test::spawn([&name] {
    auto mine = SharedSegment::open(name);
    std::memcpy(mine.base(), "from child", 11);
    return 0;
  });
  ASSERT_EQ(test::wait_child(child), 0);
  EXPECT_STREQ(static_cast<char*>(server.base()), "from child");
}

TEST_F(SegmentTest, ModeIs0600WhateverTheUmask) {
  for (const mode_t mask : {mode_t{0}, mode_t{0277}}) {
    const mode_t old = ::umask(mask);
    auto segment = SharedSegment::create(unique_name("m" + std::to_string(mask)), 4096);
    ::umask(old);
    struct stat st {};
    ASSERT_EQ(::stat(("/dev/shm" + segment.name()).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u) << "umask " << std::oct << mask;
  }
}

TEST_F(SegmentTest, UnlinkRemovesTheNameButNotTheMapping) {
  auto server = SharedSegment::create(unique_name(), 8192);
  auto client = SharedSegment::open(server.name());
  ASSERT_TRUE(in_dev_shm(server.name()));
  server.unlink();
  EXPECT_FALSE(in_dev_shm(server.name()));
  server.unlink();  // once only: a second call is a no-op
  static_cast<int*>(server.base())[10] = 42;
  EXPECT_EQ(static_cast<int*>(client.base())[10], 42);
  try {
    SharedSegment::open(server.name());
    FAIL() << "opened an unlinked segment";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), ECLUSE_CHANNEL_ERROR);
  }
}

TEST_F(SegmentTest, ClientUnlinkIsToleratedByTheServer) {
  auto server = SharedSegment::create(unique_name(), 4096);
  auto client = SharedSegment::open(server.name());
  client.unlink();
  EXPECT_FALSE(in_dev_shm(server.name()));
  EXPECT_NO_THROW(server.unlink());
}

TEST_F(SegmentTest, DestructorOfTheCreatorUnlinks) {
  const auto name = unique_name();
  {
    auto server = SharedSegment::create(name, 4096);
    { auto client = SharedSegment::open(name); }  // a client leaves the name alone
    EXPECT_TRUE(in_dev_shm(name));
  }
  EXPECT_FALSE(in_dev_shm(name));
}

TEST_F(SegmentTest, MoveTransfersTheMappingAndTheName) {
  const auto name = unique_name();
  auto first = SharedSegment::create(name, 4096);
  void* base = first.base();
  SharedSegment second(std::move(first));
  EXPECT_EQ(second.base(), base);
  auto third = SharedSegment::create(unique_name("other"), 4096);
  third = std::move(second);  // drops "other" (unlinked by its destructor)
  EXPECT_EQ(third.base(), base);
  EXPECT_FALSE(in_dev_shm(unique_name("other")));
  EXPECT_TRUE(in_dev_shm(name));
}

TEST_F(SegmentTest, ExclusiveCreateNamesTheCollisionAndTheFix) {
  const auto name = unique_name();
  auto first = SharedSegment::create(name, 4096);
  try {
    SharedSegment::create(name, 4096);
    FAIL() << "created the same segment twice";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), ECLUSE_ALLOCATION_ERROR);
    EXPECT_EQ(std::string(e.what()),
              "cannot create shared-memory segment " + name +
                  ": it already exists (File exists); another Ecluse job on this node uses the "
                  "same name, or a crashed job left it behind: if no such job is running, "
                  "remove /dev/shm" +
                  name);
  }
  EXPECT_EQ(static_cast<char*>(first.base())[0], 0);  // the first one is untouched
}

TEST_F(SegmentTest, LargerThanDevShmIsAClearError) {
  struct statvfs fs {};
  ASSERT_EQ(::statvfs("/dev/shm", &fs), 0);
  if (fs.f_blocks == 0) GTEST_SKIP() << "/dev/shm has no size limit";
  // More than the whole file system: tmpfs refuses at once, without touching memory.
  const auto size = static_cast<std::size_t>(fs.f_blocks) * fs.f_frsize * 2;
  const auto name = unique_name();
  try {
    SharedSegment::create(name, size);
    FAIL() << "created a segment of " << size << " bytes";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.status(), ECLUSE_ALLOCATION_ERROR);
    EXPECT_NE(message.find(name), std::string::npos) << message;
    EXPECT_NE(message.find(std::to_string(size)), std::string::npos) << message;
    EXPECT_NE(message.find("/dev/shm has "), std::string::npos) << message;
    EXPECT_NE(message.find("lower the buffer size"), std::string::npos) << message;
  }
  EXPECT_FALSE(in_dev_shm(name)) << "a failed create must not leave its name behind";
}

TEST_F(SegmentTest, OpeningAMissingSegmentIsAChannelError) {
  try {
    SharedSegment::open(unique_name("missing"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), ECLUSE_CHANNEL_ERROR);
    EXPECT_NE(std::string(e.what()).find("has not created it yet"), std::string::npos);
  }
}

TEST_F(SegmentTest, InvalidNamesAndSizesAreArgumentErrors) {
  const std::vector<std::string> names = {"", "/", "no-slash", "/a/b", "/" + std::string(300, 'x')};
  for (const auto& bad : names) {
    try {
      SharedSegment::create(bad, 4096);
      FAIL() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), ECLUSE_ARGUMENT_ERROR) << bad;
    }
  }
  try {
    SharedSegment::create(unique_name(), 0);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), ECLUSE_ARGUMENT_ERROR);
  }
}

// Unnamed segments (memfd): what dedicated cores use, so that no kill can leave a file behind.
TEST_F(SegmentTest, UnnamedSegmentIsSharedThroughProcAndNeverInDevShm) {
  const std::string prefix = "ecluse-" + test::job();
  auto server = SharedSegment::create_unnamed(unique_name().substr(1), 1 << 16);
  EXPECT_TRUE(dev_shm_entries(prefix).empty());
  const std::string path = server.path();
  EXPECT_EQ(path.rfind("/proc/" + std::to_string(::getpid()) + "/fd/", 0), 0u) << path;
  const pid_t child = test::spawn([&path] {
    auto mine = SharedSegment::open_path(path);
    std::memcpy(mine.base(), "from child", 11);
    return mine.size() == (1u << 16) ? 0 : 1;
  });
  ASSERT_EQ(test::wait_child(child), 0);
  EXPECT_STREQ(static_cast<char*>(server.base()), "from child");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

long minor_faults() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// After prefault(), writing every page of the segment takes no page fault, in the creator and
// in another process that maps it, and what the creator wrote before is still there.
// Sanitizers fault in their own shadow pages on the first access of each stretch of memory, so
// page-fault counts only mean something without them.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr long kFaultSlack = 1L << 30;
#else
constexpr long kFaultSlack = 8;
#endif

TEST_F(SegmentTest, PrefaultMapsEveryPageWithoutChangingTheContents) {
  constexpr std::size_t kBytes = std::size_t{8} << 20;
  auto server = SharedSegment::create_unnamed(unique_name().substr(1), kBytes);
  std::memcpy(server.base(), "kept", 5);
  server.prefault();
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  auto* bytes = static_cast<char*>(server.base());
  const long before = minor_faults();
  for (std::size_t at = page; at < kBytes; at += page) bytes[at] = 1;
  EXPECT_LT(minor_faults() - before, kFaultSlack) << "page faults after prefault";
  EXPECT_STREQ(bytes, "kept");
  const std::string path = server.path();
  const pid_t child = test::spawn([&path, page] {
    auto mine = SharedSegment::open_path(path);
    mine.prefault();
    auto* mapped = static_cast<char*>(mine.base());
    const long start = minor_faults();
    for (std::size_t at = page; at < kBytes; at += page) mapped[at] = 2;
    const bool no_faults = minor_faults() - start < kFaultSlack;
    return no_faults && std::strcmp(mapped, "kept") == 0 ? 0 : 1;
  });
  EXPECT_EQ(test::wait_child(child), 0);
  EXPECT_EQ(bytes[page], 2);
}

TEST_F(SegmentTest, UnlinkOfAnUnnamedSegmentClosesItsPathButKeepsTheMapping) {
  auto server = SharedSegment::create_unnamed("ecluse-unnamed-test", 4096);
  auto client = SharedSegment::open_path(server.path());
  const std::string path = server.path();
  server.unlink();
  EXPECT_EQ(server.path(), "");
  static_cast<char*>(client.base())[7] = 'k';
  EXPECT_EQ(static_cast<char*>(server.base())[7], 'k');
  try {
    (void)SharedSegment::open_path(path);
    FAIL() << "the path of a closed segment opened";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), ECLUSE_CHANNEL_ERROR);
    EXPECT_NE(std::string(e.what()).find("cannot open the dedicated core's shared-memory segment " +
                                         path + ": No such file or directory"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(SegmentTest, UnnamedLabelMayNotLookLikeAName) {
  try {
    (void)SharedSegment::create_unnamed("/ecluse-x", 4096);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), ECLUSE_ARGUMENT_ERROR);
  }
}

TEST(SegmentName, IsSanitized) {
  EXPECT_EQ(segment_name("1234.5", 3, "buf"), "/ecluse-1234_5-3-buf");
  EXPECT_EQ(segment_name("a/b c", 0, "x:y_z-1"), "/ecluse-a_b_c-0-x_y_z-1");
}

}  // namespace
}  // namespace ecluse::shm
