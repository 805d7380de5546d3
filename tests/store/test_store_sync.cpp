// The HDF5 stores' option Sync: with "yes" every file is fsynced under its .part name before it
// is renamed, then its directory; a failed fsync is a failed store that publishes nothing. This
// program defines fsync and rename itself (the library's calls resolve to them), records the
// calls on files of the test directory and fails the ones a test asks for.
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "StoreTestHelpers.hpp"

namespace {

std::string g_watched;             // only calls on paths under this directory are recorded
std::vector<std::string> g_calls;  // "fsync <path>" / "rename <from>"
std::string g_fail_suffix;         // fsync of a path ending so fails with EIO
std::string g_fail_exact;          // fsync of exactly this path fails with EIO
std::string g_fail_write;          // the next write of more than 4 KiB to this path fails

std::string path_of(int fd) {
  char buffer[4096];
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  const ssize_t n = ::readlink(link.c_str(), buffer, sizeof buffer - 1);
  return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
}

bool watched(const std::string& path) {
  return !g_watched.empty() && path.rfind(g_watched, 0) == 0;
}

}  // namespace

extern "C" int fsync(int fd) {
  const std::string path = path_of(fd);
  if (watched(path)) {
    g_calls.push_back("fsync " + path);
    const bool fail = (!g_fail_suffix.empty() && path.ends_with(g_fail_suffix)) ||
                      (!g_fail_exact.empty() && path == g_fail_exact);
    if (fail) {
      errno = EIO;
      return -1;
    }
  }
  return static_cast<int>(::syscall(SYS_fsync, fd));
}

// HDF5's sec2 driver writes with pwrite (pwrite64 under large-file builds).
extern "C" ssize_t pwrite64(int fd, const void* data, size_t count, off_t offset) {
  if (!g_fail_write.empty() && count > 4096 && path_of(fd) == g_fail_write) {
    g_fail_write.clear();
    errno = EIO;
    return -1;
  }
  return static_cast<ssize_t>(::syscall(SYS_pwrite64, fd, data, count, offset));
}

extern "C" ssize_t pwrite(int fd, const void* data, size_t count, off_t offset) {
  return pwrite64(fd, data, count, offset);
}

extern "C" int rename(const char* from, const char* to) {
  if (watched(from)) g_calls.push_back(std::string("rename ") + from);
  return static_cast<int>(::syscall(SYS_renameat, AT_FDCWD, from, AT_FDCWD, to));
}

namespace ecluse::test {
namespace {

/** Watches `dir` (its canonical path: /proc gives resolved names) from a clean record. */
void watch(const std::string& dir) {
  g_watched = std::filesystem::canonical(dir).string();
  g_calls.clear();
  g_fail_suffix.clear();
  g_fail_exact.clear();
  g_fail_write.clear();
}

std::string per_core_file(const std::string& dir, int iteration, int writer) {
  return dir + "/sim_It" + std::to_string(iteration) + "_Pr" + std::to_string(writer) + ".h5";
}

std::vector<double> values(int iteration) {
  std::vector<double> data(4096);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = iteration * 1e6 + double(i) + 0.25;
  return data;
}

std::vector<std::string> flushed_then_named(const std::string& file, const std::string& dir) {
  return {"fsync " + file + ".part", "rename " + file + ".part", "fsync " + dir};
}

/** A FilePerCore store in a fresh directory (its canonical path), written by this rank. */
struct PerCoreStore {
  explicit PerCoreStore(const std::string& name, const std::string& sync)
      : dir(std::filesystem::canonical(fresh_dir(name)).string()),
        store(make_store_collectively(
            hdf5_store(dir, "FilePerCore",
                       sync.empty() ? std::map<std::string, std::string>{}
                                    : std::map<std::string, std::string>{{"Sync", sync}}),
            world_env())) {}
  void write(int iteration, const std::vector<double>& data) {
    store->write_iteration(iteration, {block_of(v, data, {{4096}}, w)});
  }
  [[nodiscard]] std::string file(int iteration) const { return per_core_file(dir, iteration, w); }
  [[nodiscard]] std::string dataset() const { return "x/P" + std::to_string(w); }

  std::string dir;
  std::unique_ptr<StoreBackend> store;
  Variable v = variable("x");
  int w = world_rank();
};

TEST(StoreSync, FilePerCoreFileIsFlushedBeforeItGetsItsName) {
  PerCoreStore s("sync_per_core", "yes");
  const auto data = values(s.w);
  watch(s.dir);
  s.write(0, data);
  EXPECT_EQ(g_calls, flushed_then_named(s.file(0), s.dir));
  EXPECT_EQ(read_dataset(s.file(0), s.dataset()).bytes, as_bytes(data));
}

TEST(StoreSync, WithoutSyncNothingIsFlushed) {
  PerCoreStore s("sync_off", "");
  watch(s.dir);
  s.write(0, values(s.w));
  EXPECT_EQ(g_calls, std::vector<std::string>{"rename " + s.file(0) + ".part"});
}

TEST(StoreSync, FailedFsyncPublishesNothingAndKeepsEarlierIterations) {
  PerCoreStore s("sync_fails", "yes");
  const auto first = values(s.w), second = values(s.w + 100);
  s.write(0, first);
  watch(s.dir);
  g_fail_suffix = ".part";
  const Error e = error_of([&] { s.write(1, second); });
  g_fail_suffix.clear();
  const std::string file = s.file(1);
  EXPECT_EQ(e.status(), ECLUSE_IO_ERROR);
  EXPECT_EQ(std::string(e.what()),
            "cannot flush '" + file +
                ".part' to its storage device (fsync): Input/output error; the iteration is not "
                "stored. Fix: check the file system and its free space (dmesg), or set the "
                "option Sync of store 'h5' to no");
  EXPECT_EQ(g_calls, std::vector<std::string>{"fsync " + file + ".part"});  // never renamed
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_FALSE(std::filesystem::exists(file));
  EXPECT_TRUE(files_ending_with(s.dir, ".part").empty());
  EXPECT_EQ(read_dataset(s.file(0), s.dataset()).bytes, as_bytes(first));
}

TEST(StoreSync, FailedDirectoryFsyncIsReportedAndTheFileStays) {
  PerCoreStore s("sync_directory_fails", "yes");
  const auto data = values(s.w);
  watch(s.dir);
  g_fail_exact = s.dir;
  const Error e = error_of([&] { s.write(0, data); });
  g_fail_exact.clear();
  const std::string file = s.file(0);
  EXPECT_EQ(e.status(), ECLUSE_IO_ERROR);
  EXPECT_EQ(std::string(e.what()),
            "'" + file + "' was written and renamed, but its directory '" + s.dir +
                "' could not be flushed (fsync): Input/output error; the file may be missing "
                "after a crash of the node. Fix: check the file system (dmesg), or set the "
                "store's option Sync to no");
  EXPECT_EQ(read_dataset(file, s.dataset()).bytes, as_bytes(data));
}

// The calls on the test directory of one Collective iteration written with Sync on or off.
std::vector<std::string> collective_calls(const std::string& dir, const std::string& sync,
                                          int iteration, const std::vector<double>& data) {
  auto store =
      make_store_collectively(hdf5_store(dir, "Collective", {{"Sync", sync}}), world_env());
  Variable v = variable("x");
  const std::uint64_t w = static_cast<std::uint64_t>(world_rank()), n = world_size();
  watch(dir);
  store->write_iteration(
      iteration, {block_of(v, data, {{256}, {}, {}, {std::int64_t(256 * w)}, {256 * n}}, int(w))});
  return g_calls;
}

// Every writer flushes the shared file (on a parallel file system, its own cache) before the
// first one renames it. MPI-IO may fsync on its own (Open MPI's aggregator does): the calls
// are those of the same write without Sync, plus ours.
TEST(StoreSync, CollectiveFileIsFlushedByEveryWriterBeforeItGetsItsName) {
  const std::string dir = std::filesystem::canonical(fresh_dir("sync_collective")).string();
  const int w = world_rank();
  std::vector<double> data(256);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = w * 1000.0 + double(i);
  const std::string file0 = dir + "/sim_It0.h5", file1 = dir + "/sim_It1.h5";
  std::vector<std::string> expected = collective_calls(dir, "no", 0, data);
  for (std::string& call : expected) call.replace(call.find("It0"), 3, "It1");
  const auto rename = std::find(expected.begin(), expected.end(), "rename " + file1 + ".part");
  EXPECT_EQ(rename != expected.end(), w == 0);  // only the first writer renames
  expected.insert(rename, "fsync " + file1 + ".part");
  if (w == 0) expected.push_back("fsync " + dir);
  EXPECT_EQ(collective_calls(dir, "yes", 1, data), expected);
  MPI_Barrier(MPI_COMM_WORLD);
  const Dataset whole = read_dataset(file1, "x");
  std::vector<double> part(256);
  std::memcpy(part.data(), whole.bytes.data() + 256 * sizeof(double) * w, part.size() * 8);
  EXPECT_EQ(part, data);
}

TEST(StoreSync, FilePerNodeLeaderFlushesTheNodesFile) {
  const std::string dir = std::filesystem::canonical(fresh_dir("sync_per_node")).string();
  // Each rank its own node (node_comm = self): each is its node's leader.
  auto store = make_store_collectively(
      hdf5_store(dir, "FilePerNode", {{"Sync", "yes"}}),
      {MPI_COMM_WORLD, world_rank(), MPI_COMM_SELF, world_rank(), 1, "sim"});
  Variable v = variable("x");
  const int w = world_rank();
  const auto data = values(w);
  watch(dir);
  store->write_iteration(0, {block_of(v, data, {{4096}}, w)});
  ASSERT_EQ(g_calls.size(), 3u);
  const std::string part = g_calls[0].substr(6);
  EXPECT_TRUE(part.ends_with(".part")) << part;
  const std::string file = part.substr(0, part.size() - 5);
  EXPECT_EQ(g_calls, flushed_then_named(file, dir));
  EXPECT_EQ(read_dataset(file, "x/P" + std::to_string(w)).bytes, as_bytes(data));
}

TEST(StoreSync, SyncAcceptsYesAndNoOnly) {
  const Error e = error_of([&] {
    run_collectively(MPI_COMM_WORLD, [&] {
      make_store(hdf5_store(fresh_dir("sync_bad"), "FilePerCore", {{"Sync", "always"}}),
                 world_env());
    });
  });
  EXPECT_EQ(e.status(), ECLUSE_CONFIG_ERROR);
  EXPECT_EQ(std::string(e.what()),
            "store 'h5' of type 'HDF5': option Sync is 'always'; allowed values: yes, no");
}

// HDF5 keeps a chunk that fits its cache (here a compressed 32 KiB block) until the dataset
// is closed, and closes the dataset even when that write fails: the store must see the failure
// and publish nothing, not a file whose chunk is missing.
TEST(StoreSync, AChunkWriteThatFailsAtDatasetCloseFailsTheIteration) {
  const std::string dir = std::filesystem::canonical(fresh_dir("close_fails")).string();
  auto store = make_store_collectively(hdf5_store(dir, "FilePerCore", {{"Compression", "deflate"}}),
                                       world_env());
  const Variable v = variable("x");
  const int w = world_rank();
  std::mt19937_64 random(7 + w);
  std::vector<double> data(4096);
  for (double& x : data) x = std::uniform_real_distribution<double>()(random);
  store->write_iteration(0, {block_of(v, data, {{4096}}, w)});
  watch(dir);
  g_fail_write = per_core_file(dir, 1, w) + ".part";
  const Error e = error_of([&] { store->write_iteration(1, {block_of(v, data, {{4096}}, w)}); });
  EXPECT_TRUE(g_fail_write.empty()) << "no large write to " << g_fail_write;
  EXPECT_EQ(e.status(), ECLUSE_IO_ERROR);
  EXPECT_NE(std::string(e.what()).find("close dataset 'x/P" + std::to_string(w) +
                                       "' (writing its last data)"),
            std::string::npos)
      << e.what();
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_FALSE(std::filesystem::exists(per_core_file(dir, 1, w)));
  EXPECT_FALSE(std::filesystem::exists(per_core_file(dir, 1, w) + ".part"));
  EXPECT_EQ(read_dataset(per_core_file(dir, 0, w), "x/P" + std::to_string(w)).bytes,
            as_bytes(data));
}

// A FileName without {iteration} names the same file at every iteration: its fsync and rename
// cannot wait for another thread, or the next iteration would find the part still there.
TEST(StoreSync, AFileNameWithoutTheIterationIsPublishedBeforeTheNextIteration) {
  const std::string dir = std::filesystem::canonical(fresh_dir("sync_same_name")).string();
  auto store = make_store_collectively(
      hdf5_store(dir, "FilePerCore",
                 {{"Sync", "yes"}, {"FileName", "{simulation}_last_Pr{writer}.h5"}}),
      world_env());
  const Variable v = variable("x");
  const int w = world_rank();
  const auto first = values(w), second = values(w + 100);
  EXPECT_FALSE(store->write_iteration_deferred(0, {block_of(v, first, {{4096}}, w)}));
  EXPECT_FALSE(store->write_iteration_deferred(1, {block_of(v, second, {{4096}}, w)}));
  const std::string file = dir + "/sim_last_Pr" + std::to_string(w) + ".h5";
  EXPECT_EQ(read_dataset(file, "x/P" + std::to_string(w)).bytes, as_bytes(second));
}

// Directories a FileName with '/' makes are part of the file's name: with Sync each new one's
// entry is flushed (its parent's fsync) before the file in it is published.
std::vector<std::string> calls_of_nested_writes(const std::string& dir, const std::string& sync) {
  auto store = make_store_collectively(
      hdf5_store(dir, "FilePerCore",
                 {{"Sync", sync}, {"FileName", "w{writer}/it{iteration}/{simulation}.h5"}}),
      world_env());
  const Variable v = variable("x");
  const int w = world_rank();
  watch(dir);
  store->write_iteration(0, {block_of(v, values(w), {{4096}}, w)});
  store->write_iteration(1, {block_of(v, values(w + 1), {{4096}}, w)});
  const std::string file = dir + "/w" + std::to_string(w) + "/it1/sim.h5";
  EXPECT_EQ(read_dataset(file, "x/P" + std::to_string(w)).bytes, as_bytes(values(w + 1)));
  return g_calls;
}

TEST(StoreSync, DirectoriesMadeForAFileAreFlushedBeforeTheFileIsPublished) {
  const std::string dir = std::filesystem::canonical(fresh_dir("sync_nested")).string();
  const std::string mine = dir + "/w" + std::to_string(world_rank());
  std::vector<std::string> expected = {"fsync " + dir, "fsync " + mine};  // w<n>, then it0
  for (const std::string iteration : {"it0", "it1"}) {
    if (iteration == "it1") expected.push_back("fsync " + mine);  // it1
    const std::string file = mine + "/" + iteration + "/sim.h5";
    for (const std::string& call : flushed_then_named(file, mine + "/" + iteration))
      expected.push_back(call);
  }
  EXPECT_EQ(calls_of_nested_writes(dir, "yes"), expected);
}

TEST(StoreSync, DirectoriesMadeWithoutSyncAreNotFlushed) {
  const std::string dir = std::filesystem::canonical(fresh_dir("sync_nested_off")).string();
  const std::string mine = dir + "/w" + std::to_string(world_rank());
  EXPECT_EQ(calls_of_nested_writes(dir, "no"),
            (std::vector<std::string>{"rename " + mine + "/it0/sim.h5.part",
                                      "rename " + mine + "/it1/sim.h5.part"}));
}

}  // namespace
}  // namespace ecluse::test
