// Failed writes never publish a file: an impossible directory and a full disk (RLIMIT_FSIZE)
// leave earlier iterations intact, no file under the failed iteration's name, no .part.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <thread>

#include "StoreTestHelpers.hpp"
#include "core/Collective.hpp"
#include "core/Process.hpp"
#include "store/Hdf5Support.hpp"
#include "store/OutputLock.hpp"

namespace ecluse::test {
namespace {

const char* const kFix =
    ". Fix: make every component of this path a directory you may write to, or change the "
    "FilesPath option of the store";

const char* const kFullFix =
    ". Fix: free space on that file system or change the FilesPath option of store 'h5'";

void make_blocker_file(const std::string& path) {
  if (world_rank() == 0) std::ofstream(path) << "in the way";
  MPI_Barrier(MPI_COMM_WORLD);
}

std::vector<double> big_data(int iteration) {
  std::vector<double> data(32768);  // 256 KiB per block
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = iteration * 1e6 + double(i);
  return data;
}

std::string per_core_file(const std::string& dir, int iteration, int writer) {
  return dir + "/sim_It" + std::to_string(iteration) + "_Pr" + std::to_string(writer) + ".h5";
}

TEST(StoreFailures, ImpossibleDirectoryKeepsEarlierIterations) {
  const std::string dir = fresh_dir("fail_directory");
  Store config =
      hdf5_store(dir, "FilePerCore", {{"FileName", "It{iteration}/{simulation}_Pr{writer}.h5"}});
  auto store = make_store_collectively(config, world_env());
  Variable v = variable("x");
  const int w = world_rank();
  const std::vector<std::int32_t> data = {w, w + 1, w + 2};
  store->write_iteration(0, {block_of(v, data, {{3}}, w)});
  make_blocker_file(dir + "/It1");
  Error e = error_of([&] { store->write_iteration(1, {block_of(v, data, {{3}}, w)}); });
  EXPECT_EQ(e.status(), ECLUSE_IO_ERROR);
  EXPECT_EQ(std::string(e.what()), "cannot create output directory '" + dir +
                                       "/It1' for store 'h5': Not a directory" + kFix);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_EQ(read_dataset(dir + "/It0/sim_Pr" + std::to_string(w) + ".h5", "x/P" + std::to_string(w))
                .bytes,
            as_bytes(data));
  EXPECT_TRUE(files_ending_with(dir, ".part").empty());
}

TEST(StoreFailures, FilesPathBelowAFile) {
  const std::string dir = fresh_dir("fail_files_path");
  make_blocker_file(dir + "/blocker");
  for (const std::string mode : {"FilePerCore", "Collective"}) {
    // Refused when the store is made (at initialize), where the run's lock is taken.
    Error e = error_of([&] {
      run_collectively(MPI_COMM_WORLD,
                       [&] { make_store(hdf5_store(dir + "/blocker/out", mode), world_env()); });
    });
    EXPECT_EQ(e.status(), ECLUSE_IO_ERROR) << mode;
    EXPECT_EQ(std::string(e.what()), "cannot create output directory '" + dir +
                                         "/blocker/out' for store 'h5': Not a directory" + kFix)
        << mode;
  }
  // From a file, the message starts with the store's place in it.
  Store located = hdf5_store(dir + "/blocker/out", "FilePerCore");
  located.where = {"sim.xml", 17, 5};
  Error e = error_of(
      [&] { run_collectively(MPI_COMM_WORLD, [&] { make_store(located, world_env()); }); });
  EXPECT_EQ(std::string(e.what()), "sim.xml:17:5: cannot create output directory '" + dir +
                                       "/blocker/out' for store 'h5': Not a directory" + kFix);
}

TEST(StoreFailures, CollectiveImpossibleDirectoryFailsOnEveryRank) {
  const std::string dir = fresh_dir("fail_collective_directory");
  auto store = make_store_collectively(
      hdf5_store(dir, "Collective", {{"FileName", "It{iteration}/{simulation}.h5"}}), world_env());
  Variable v = variable("x");
  const std::int64_t w = world_rank();
  const std::vector<std::int64_t> data = {w * 3};
  const Shape shape{{1}, {}, {}, {w}};
  store->write_iteration(0, {block_of(v, data, shape, int(w))});
  make_blocker_file(dir + "/It1");
  Error e = error_of([&] { store->write_iteration(1, {block_of(v, data, shape, int(w))}); });
  EXPECT_EQ(e.status(), ECLUSE_IO_ERROR);
  EXPECT_EQ(std::string(e.what()), "cannot create output directory '" + dir +
                                       "/It1' for store 'h5': Not a directory" + kFix);
  MPI_Barrier(MPI_COMM_WORLD);
  if (w != 0) return;
  std::vector<std::int64_t> expected;
  for (int k = 0; k < world_size(); ++k) expected.push_back(3 * k);
  EXPECT_EQ(read_dataset(dir + "/It0/sim.h5", "x").bytes, as_bytes(expected));
  EXPECT_TRUE(files_ending_with(dir, ".part").empty());
}

TEST(StoreFailures, FullDiskFilePerCore) {
  const std::string dir = fresh_dir("fail_full_disk");
  auto store = make_store_collectively(hdf5_store(dir, "FilePerCore"), world_env());
  Variable v = variable("big");
  const int w = world_rank();
  const auto first = big_data(0);
  const auto second = big_data(1);
  store->write_iteration(0, {block_of(v, first, {{first.size()}}, w)});
  Error e = [&] {
    FileSizeLimit limit(64 * 1024);
    return error_of(
        [&] { store->write_iteration(1, {block_of(v, second, {{second.size()}}, w)}); });
  }();
  EXPECT_EQ(e.status(), ECLUSE_IO_ERROR);
  // 256 KiB of data + 64 KiB + 16 KiB per dataset of margin for the metadata.
  EXPECT_EQ(std::string(e.what()), "cannot reserve 344064 bytes for '" + per_core_file(dir, 1, w) +
                                       "': File too large" + kFullFix);
  EXPECT_FALSE(std::filesystem::exists(per_core_file(dir, 1, w)));
  EXPECT_FALSE(std::filesystem::exists(per_core_file(dir, 1, w) + ".part"));
  EXPECT_EQ(read_dataset(per_core_file(dir, 0, w), "big/P" + std::to_string(w)).bytes,
            as_bytes(first));
  store->write_iteration(2, {block_of(v, second, {{second.size()}}, w)});  // space is back
  EXPECT_EQ(read_dataset(per_core_file(dir, 2, w), "big/P" + std::to_string(w)).bytes,
            as_bytes(second));
}

TEST(StoreFailures, FullDiskCollectiveFailsOnEveryRank) {
  const std::string dir = fresh_dir("fail_full_disk_collective");
  auto store = make_store_collectively(hdf5_store(dir, "Collective"), world_env());
  Variable v = variable("big");
  const std::int64_t w = world_rank();
  const auto first = big_data(0);
  const Shape shape{{first.size()}, {}, {}, {w * std::int64_t(first.size())}};
  store->write_iteration(0, {block_of(v, first, shape, int(w))});
  Error e = [&] {
    FileSizeLimit limit(64 * 1024);
    return error_of([&] { store->write_iteration(1, {block_of(v, first, shape, int(w))}); });
  }();
  EXPECT_EQ(e.status(), ECLUSE_IO_ERROR);
  const std::uint64_t bytes = 262144 * std::uint64_t(world_size()) + 65536 + 16384;
  EXPECT_EQ(std::string(e.what()), "cannot reserve " + std::to_string(bytes) + " bytes for '" +
                                       dir + "/sim_It1.h5': File too large" + kFullFix);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_FALSE(std::filesystem::exists(dir + "/sim_It1.h5"));
  EXPECT_TRUE(files_ending_with(dir, ".part").empty());
  if (w != 0) return;
  const Dataset d = read_dataset(dir + "/sim_It0.h5", "big");
  EXPECT_EQ(d.dims, std::vector<std::uint64_t>{first.size() * std::uint64_t(world_size())});
  std::vector<double> expected;
  for (int k = 0; k < world_size(); ++k)
    expected.insert(expected.end(), first.begin(), first.end());
  EXPECT_EQ(d.bytes, as_bytes(expected));
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// A file HDF5 could not create, flush or close: the fix follows the state of its directory.
TEST(StoreFailures, FileSystemFixFollowsTheDirectorysState) {
  const std::string dir = fresh_dir("fix") + "/r" + std::to_string(world_rank());
  std::filesystem::create_directories(dir);
  EXPECT_EQ(file_system_fix(dir + "/sim_It3.h5"),
            "Fix: check that '" + dir +
                "' is on a mounted, writable file system with free space (df, dmesg)");
  std::filesystem::remove(dir);
  EXPECT_EQ(file_system_fix(dir + "/sim_It3.h5"),
            "Fix: its directory '" + dir +
                "' is gone (removed or unmounted while the run wrote): make it again for the "
                "next iterations, or change the store's FilesPath");
  quiet_hdf5_errors();
  Error e = error_of([&] { hdf5_check(-1, "create the file", dir + "/sim_It3.h5"); });
  EXPECT_EQ(std::string(e.what()), "HDF5 could not create the file in '" + dir +
                                       "/sim_It3.h5': no detail on the HDF5 error stack. " +
                                       file_system_fix(dir + "/sim_It3.h5"));
  e = error_of([&] { hdf5_check(-1, "create dataset 'x/P0'", dir + "/sim_It3.h5"); });
  EXPECT_EQ(std::string(e.what()), "HDF5 could not create dataset 'x/P0' in '" + dir +
                                       "/sim_It3.h5': no detail on the HDF5 error stack")
      << "no file-system fix for an action that is not on the file";
}

TEST(StoreLock, SecondLiveRunIntoTheSameDirectoryIsRefused) {
  const std::string dir = fresh_dir("lock_live");
  // The parent of rank 0 (the launcher) is alive: it stands for another run.
  long parent = getppid();
  MPI_Bcast(&parent, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  if (world_rank() == 0) {
    write_text(dir + "/.sim.ecluse-lock", this_host_name() + "\n" + std::to_string(parent) + "\n");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  Error e = error_of([&] {
    run_collectively(MPI_COMM_WORLD,
                     [&] { make_store(hdf5_store(dir, "FilePerCore"), world_env()); });
  });
  EXPECT_EQ(e.status(), ECLUSE_IO_ERROR);
  EXPECT_EQ(std::string(e.what()),
            "store 'h5': another run (pid " + std::to_string(parent) + " on host '" +
                this_host_name() +
                "') writes the same simulation into this directory (lock file '" + dir +
                "/.sim.ecluse-lock'). Fix: wait for it to end, give this run another "
                "FilesPath or simulation name, or remove the lock file if that run is no "
                "longer alive");
}

// A FileName without {simulation} names the same files for every simulation: a live run of
// another simulation writing them is refused too (its files and ours replaced each other).
TEST(StoreLock, AnotherSimulationWritingTheSameNamesIsRefused) {
  const std::string dir = fresh_dir("lock_names");
  const std::string pattern = "out_It{iteration}_Pr{writer}.h5";
  long parent = getppid();
  MPI_Bcast(&parent, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  StoreEnv other = world_env();
  other.simulation = "other";
  std::string lock;
  if (world_rank() == 0) {  // the other simulation's lock, as its run took it
    OutputLock taken(dir, "other", pattern, "h5", false, nullptr);
    lock = taken.path();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) {  // held by a live process (the launcher) of another run
    write_text(lock, this_host_name() + "\n" + std::to_string(parent) + "\n");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  std::string path = lock;
  path.resize(512, '\0');
  MPI_Bcast(path.data(), 512, MPI_CHAR, 0, MPI_COMM_WORLD);
  lock = path.c_str();
  EXPECT_NE(lock.find("/.files-"), std::string::npos) << lock;
  const Error e = error_of([&] {
    run_collectively(MPI_COMM_WORLD, [&] {
      make_store(hdf5_store(dir, "FilePerCore", {{"FileName", pattern}}), world_env());
    });
  });
  EXPECT_EQ(e.status(), ECLUSE_IO_ERROR);
  EXPECT_EQ(std::string(e.what()),
            "store 'h5': another run (pid " + std::to_string(parent) + " on host '" +
                this_host_name() + "') writes files of the same names (FileName '" + pattern +
                "', without {simulation}) into this directory (lock file '" + lock +
                "'). Fix: wait for it to end, give this run another FilesPath or simulation "
                "name, or remove the lock file if that run is no longer alive");
}

TEST(StoreLock, StaleLockIsReplacedAndItsPartsRemovedAndNamed) {
  if (world_size() > 1) GTEST_SKIP() << "one writer is enough";
  const std::string dir = fresh_dir("lock_stale");
  write_text(dir + "/.sim.ecluse-lock", this_host_name() + "\n999999999\n");
  write_text(dir + "/sim_It3_Pr0.h5.part", "half a file");
  write_text(dir + "/other_It3_Pr0.h5.part", "another simulation's");
  LogConfig log_config;
  log_config.file = dir + "/log";
  Log log(log_config, 0);
  StoreEnv env = world_env();
  env.log = &log;
  {
    auto store = make_store_collectively(hdf5_store(dir, "FilePerCore"), env);
    EXPECT_FALSE(std::filesystem::exists(dir + "/sim_It3_Pr0.h5.part"));
    EXPECT_TRUE(std::filesystem::exists(dir + "/other_It3_Pr0.h5.part"));
    EXPECT_EQ(read_text(dir + "/.sim.ecluse-lock"),
              this_host_name() + "\n" + std::to_string(getpid()) + "\nstart " +
                  std::to_string(process_start_ticks(getpid())) + "\nboot " + boot_id() +
                  "\nbeat 30000ms\n");
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/.sim.ecluse-lock"));  // released at the end
  EXPECT_EQ(read_text(dir + "/log.0.log"),
            "[ecluse 0] warning: store 'h5': replaced the lock '" + dir +
                "/.sim.ecluse-lock' of a run that stopped (pid 999999999 on host '" +
                this_host_name() +
                "')\n[ecluse 0] warning: store 'h5': removed 1 partial file(s) in '" + dir +
                "' left by a run of the same simulation that stopped before finishing them: "
                "'sim_It3_Pr0.h5.part'\n");
}

// The lock of a crashed run whose pid now belongs to an unrelated live process (pids are
// reused) is replaced, and so is one taken before the host restarted; the lock of the live
// process itself, start time and boot matching, is not.
std::string lock_held_by(long pid, std::uint64_t start, const std::string& boot) {
  return this_host_name() + "\n" + std::to_string(pid) + "\nstart " + std::to_string(start) +
         "\nboot " + boot + "\n";
}

std::string replaced_lock_warning(const std::string& dir, long pid, const std::string& why) {
  return "[ecluse 0] warning: store 'h5': replaced the lock '" + dir +
         "/.sim.ecluse-lock' of a run that stopped (pid " + std::to_string(pid) + " on host '" +
         this_host_name() + "'" + why + ")\n";
}

TEST(StoreLock, LockOfAReusedPidOrAnEarlierBootIsReplacedTheLiveOwnersIsNot) {
  if (world_size() > 1) GTEST_SKIP() << "one writer is enough";
  const long parent = getppid();  // alive through the test
  const std::uint64_t started = process_start_ticks(parent);
  ASSERT_NE(started, 0u);
  ASSERT_FALSE(boot_id().empty());
  const struct {
    std::uint64_t start;
    std::string boot;
    const char* why;  // nullptr: refused
  } cases[] = {{started + 1, boot_id(), ": its pid is another process's now"},
               {started, "00000000-0000-0000-0000-000000000000", ": the host has restarted since"},
               {started, boot_id(), nullptr}};
  int n = 0;
  for (const auto& c : cases) {
    const std::string dir = fresh_dir("lock_reused_" + std::to_string(n++));
    write_text(dir + "/.sim.ecluse-lock", lock_held_by(parent, c.start, c.boot));
    LogConfig log_config;
    log_config.file = dir + "/log";
    Log log(log_config, 0);
    StoreEnv env = world_env();
    env.log = &log;
    if (c.why == nullptr) {
      const Error e = error_of([&] { make_store(hdf5_store(dir, "FilePerCore"), env); });
      EXPECT_EQ(e.status(), ECLUSE_IO_ERROR);
      EXPECT_NE(std::string(e.what()).find("another run (pid " + std::to_string(parent)),
                std::string::npos)
          << e.what();
      continue;
    }
    { auto store = make_store(hdf5_store(dir, "FilePerCore"), env); }
    EXPECT_EQ(read_text(dir + "/log.0.log"), replaced_lock_warning(dir, parent, c.why));
  }
}

void set_age(const std::string& path, int seconds) {
  timespec times[2];
  clock_gettime(CLOCK_REALTIME, &times[0]);
  times[0].tv_sec -= seconds;
  times[1] = times[0];
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

// A lock of another host (its pid cannot be checked there) is a stopped run's when its owner
// has not refreshed it for six beats; a lock without a beat (an older Ecluse) never is.
TEST(StoreLock, LockOfAnotherHostIsReplacedOnlyWhenNotRefreshedForSixBeats) {
  if (world_size() > 1) GTEST_SKIP() << "one writer is enough";
  const std::string other = "elsewhere-" + this_host_name();
  const struct {
    std::string beat;
    int age;
    bool replaced;
  } cases[] = {{"\nbeat 30000ms", 181, true},
               {"\nbeat 30000ms", 170, false},
               {"\nbeat 1000ms", 7, true},
               {"", 100000, false}};
  int n = 0;
  for (const auto& c : cases) {
    const std::string dir = fresh_dir("lock_elsewhere_" + std::to_string(n++));
    const std::string lock = dir + "/.sim.ecluse-lock";
    write_text(lock, other + "\n4242\nstart 17\nboot b" + c.beat + "\n");
    set_age(lock, c.age);
    LogConfig log_config;
    log_config.file = dir + "/log";
    Log log(log_config, 0);
    StoreEnv env = world_env();
    env.log = &log;
    if (!c.replaced) {
      const Error e = error_of([&] { make_store(hdf5_store(dir, "FilePerCore"), env); });
      EXPECT_NE(std::string(e.what()).find("another run (pid 4242 on host '" + other + "')"),
                std::string::npos)
          << e.what();
      continue;
    }
    { auto store = make_store(hdf5_store(dir, "FilePerCore"), env); }
    const std::string log_text = read_text(dir + "/log.0.log");
    const std::string said = log_text.substr(0, log_text.find(" s ago"));
    const std::string expected = "[ecluse 0] warning: store 'h5': replaced the lock '" + lock +
                                 "' of a run that stopped (pid 4242 on host '" + other +
                                 "': its lock was last refreshed ";
    // A second may pass between setting the time and reading it.
    EXPECT_TRUE(said == expected + std::to_string(c.age) ||
                said == expected + std::to_string(c.age + 1))
        << log_text;
  }
}

// A run whose heartbeat failed (or whose lock's time is off) but that still writes its partial
// files is alive: its lock is not taken.
TEST(StoreLock, LockOfAnotherHostWhosePartialFilesAreFreshIsNotTaken) {
  if (world_size() > 1) GTEST_SKIP() << "one writer is enough";
  const std::string dir = fresh_dir("lock_elsewhere_writing");
  const std::string lock = dir + "/.sim.ecluse-lock";
  write_text(lock, "elsewhere-" + this_host_name() + "\n4242\nbeat 1000ms\n");
  set_age(lock, 3600);
  write_text(dir + "/sim_It7_Pr0.h5.part", "being written");
  const Error e = error_of([&] { make_store(hdf5_store(dir, "FilePerCore"), world_env()); });
  EXPECT_NE(std::string(e.what()).find("another run (pid 4242"), std::string::npos) << e.what();
  EXPECT_TRUE(std::filesystem::exists(dir + "/sim_It7_Pr0.h5.part"));
  set_age(dir + "/sim_It7_Pr0.h5.part", 3600);  // not written for an hour: that run stopped
  { auto store = make_store(hdf5_store(dir, "FilePerCore"), world_env()); }
  EXPECT_FALSE(std::filesystem::exists(dir + "/sim_It7_Pr0.h5.part"));
}

// An owner whose lock another run took (taken for a stopped run's: a suspended job) neither
// refreshes nor removes the other run's lock.
TEST(StoreLock, AnOwnerLeavesALockAnotherRunTookAlone) {
  if (world_size() > 1) GTEST_SKIP() << "one writer is enough";
  const std::string dir = fresh_dir("lock_taken");
  std::string path;
  {
    OutputLock mine(dir, "sim", "", "h5", false, nullptr, std::chrono::milliseconds(50));
    path = mine.path();
    ASSERT_EQ(unlink(path.c_str()), 0);
    write_text(path, "elsewhere\n4242\nbeat 30000ms\n");  // the other run's
    set_age(path, 3600);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  ASSERT_TRUE(std::filesystem::exists(path));
  EXPECT_EQ(read_text(path), "elsewhere\n4242\nbeat 30000ms\n");
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_GT(std::time(nullptr) - st.st_mtim.tv_sec, 3000);  // not refreshed by the old owner
}

TEST(StoreLock, TheOwnerRefreshesItsLockEveryBeat) {
  if (world_size() > 1) GTEST_SKIP() << "one writer is enough";
  const std::string dir = fresh_dir("lock_beat");
  OutputLock lock(dir, "sim", "", "h5", false, nullptr, std::chrono::milliseconds(50));
  set_age(lock.path(), 3600);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  struct stat st {};
  ASSERT_EQ(stat(lock.path().c_str(), &st), 0);
  EXPECT_LT(std::abs(std::time(nullptr) - st.st_mtim.tv_sec), 60);
  EXPECT_NE(read_text(lock.path()).find("\nbeat 50ms\n"), std::string::npos);
}

// A run killed by Ctrl-C stays a zombie until its parent reaps it (seconds under mpiexec): a
// rerun at once must see it ended, not refuse as if another run were writing.
TEST(StoreLock, LockOfAnEndedButUnreapedRunIsReplaced) {
  if (world_size() > 1) GTEST_SKIP() << "one writer is enough";
  const std::string dir = fresh_dir("lock_zombie");
  const pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, child, &info, WEXITED | WNOWAIT), 0);  // ended, left unreaped
  EXPECT_EQ(kill(child, 0), 0) << "an unreaped child still answers kill(pid, 0)";
  EXPECT_TRUE(process_gone(child));
  write_text(dir + "/.sim.ecluse-lock", this_host_name() + "\n" + std::to_string(child) + "\n");
  {
    auto store = make_store_collectively(hdf5_store(dir, "FilePerCore"), world_env());
    EXPECT_EQ(read_text(dir + "/.sim.ecluse-lock"),
              this_host_name() + "\n" + std::to_string(getpid()) + "\nstart " +
                  std::to_string(process_start_ticks(getpid())) + "\nboot " + boot_id() +
                  "\nbeat 30000ms\n");
  }
  waitpid(child, nullptr, 0);
  EXPECT_FALSE(process_gone(getpid()));
}

TEST(StoreLock, ExistingPartIsNeitherOverwrittenNorRemoved) {
  const std::string dir = fresh_dir("lock_part");
  auto store = make_store_collectively(hdf5_store(dir, "FilePerCore"), world_env());
  const int w = world_rank();
  const std::string part = dir + "/sim_It0_Pr" + std::to_string(w) + ".h5.part";
  write_text(part, "another run's");
  Variable v = variable("x");
  const std::vector<double> data = {1.0};
  Error e = error_of([&] { store->write_iteration(0, {block_of(v, data, {{1}}, w)}); });
  EXPECT_EQ(e.status(), ECLUSE_IO_ERROR);
  EXPECT_EQ(std::string(e.what()), "'" + part +
                                       "' already exists: another run is writing the same file, "
                                       "or it is not a file of this run. Fix: give each run its "
                                       "own FilesPath or simulation name, or remove it");
  EXPECT_EQ(read_text(part), "another run's");
}

TEST(StoreLock, LeftoverPartsFollowTheFileNamePattern) {
  const std::string dir = fresh_dir("lock_pattern");
  std::filesystem::create_directories(dir + "/It12");
  for (const std::string name : {"It12/heat_Pr3.h5.part", "It12/heat_Pr3.h5",
                                 "It12/cold_Pr3.h5.part", "Itx/heat_Pr3.h5.part", "heat.h5.part"}) {
    std::filesystem::create_directories(std::filesystem::path(dir + "/" + name).parent_path());
    write_text(dir + "/" + name, "");
  }
  EXPECT_EQ(leftover_parts(dir, "heat", "It{iteration}/{simulation}_Pr{writer}.h5"),
            std::vector<std::string>{"It12/heat_Pr3.h5.part"});
}

// Final files of an earlier run (more iterations or processes than this one, or the run this
// one restarts) are kept but named by the lock's owner, a few of them, with the fix.
TEST(StoreLock, EarlierOutputsAreNamedNotRemoved) {
  if (world_size() > 1) GTEST_SKIP() << "one writer is enough";
  const std::string dir = fresh_dir("lock_earlier");
  const std::vector<std::string> earlier{"sim_It0_Pr0.h5", "sim_It10_Pr0.h5", "sim_It11_Pr0.h5",
                                         "sim_It1_Pr0.h5", "sim_It1_Pr1.h5",  "sim_It2_Pr0.h5",
                                         "sim_It9_Pr3.h5"};  // sorted as text
  for (const std::string& name : earlier) write_text(dir + "/" + name, "kept");
  for (const std::string name : {"other_It0_Pr0.h5", "sim_It0_Pr0.h5.xmf", "sim.h5"}) {
    write_text(dir + "/" + name, "not this run's kind of name");
  }
  EXPECT_EQ(earlier_outputs(dir, "sim", "{simulation}_It{iteration}_Pr{writer}.h5"), earlier);
  LogConfig log_config;
  log_config.file = dir + "/log";
  Log log(log_config, 0);
  StoreEnv env = world_env();
  env.log = &log;
  { auto store = make_store_collectively(hdf5_store(dir, "FilePerCore"), env); }
  for (const std::string& name : earlier) EXPECT_EQ(read_text(dir + "/" + name), "kept");
  EXPECT_EQ(read_text(dir + "/log.0.log"),
            "[ecluse 0] warning: store 'h5': '" + dir +
                "' already holds 7 file(s) named as this run names its own ('sim_It0_Pr0.h5', "
                "'sim_It10_Pr0.h5', 'sim_It11_Pr0.h5', 'sim_It1_Pr0.h5', 'sim_It1_Pr1.h5' and 2 "
                "more): from an earlier run, or from "
                "the run this one restarts. This run replaces those it writes again and leaves "
                "the others beside its own; if they are not wanted there, remove them first or "
                "give this run another FilesPath.\n");
}

}  // namespace
}  // namespace ecluse::test
