// Scheduled writes with 4 writers: at most ConcurrentWriters write at once (intervals
// recorded), writers with fewer rounds or a failing write never hang the others, and through
// the API in TP, DC and DN every iteration is stored once, read back bit for bit.
#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "TestSupport.hpp"
#include "accounting/Accounting.hpp"
#include "ecluse/ecluse.h"
#include "writer/WriteScheduler.hpp"

namespace {

namespace fs = std::filesystem;
using Interval = std::pair<double, double>;

std::string g_slow_fsync_under;  // fsyncs of ".part" files under it take 40 ms and are recorded
std::vector<Interval> g_fsyncs;

std::string path_of(int fd) {
  char buffer[4096];
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  const ssize_t n = ::readlink(link.c_str(), buffer, sizeof buffer - 1);
  return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
}

}  // namespace

// The library's fsync resolves to this one: a slow disk for the files of one test.
extern "C" int fsync(int fd) {
  const std::string path = path_of(fd);
  const bool slow = !g_slow_fsync_under.empty() && path.rfind(g_slow_fsync_under, 0) == 0 &&
                    path.ends_with(".part");
  const double start = ecluse::wall_clock();
  if (slow) std::this_thread::sleep_for(std::chrono::milliseconds(40));
  const int result = static_cast<int>(::syscall(SYS_fsync, fd));
  if (slow) g_fsyncs.emplace_back(start, ecluse::wall_clock());
  return result;
}

namespace {

int rank_of(MPI_Comm comm = MPI_COMM_WORLD) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

// The most intervals that overlap at one instant (an end before an equal start).
int most_at_once(std::vector<Interval> all) {
  std::vector<std::pair<double, int>> events;
  for (const auto& [start, end] : all) {
    events.emplace_back(start, 1);
    events.emplace_back(end, -1);
  }
  std::sort(events.begin(), events.end());
  int now = 0, most = 0;
  for (const auto& event : events) most = std::max(most, now += event.second);
  return most;
}

std::vector<Interval> gather_intervals(const std::vector<Interval>& mine) {
  std::vector<double> flat;
  for (const auto& [start, end] : mine) flat.insert(flat.end(), {start, end});
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int count = static_cast<int>(flat.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), offsets(counts.size());
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (std::size_t i = 1; i < counts.size(); ++i) offsets[i] = offsets[i - 1] + counts[i - 1];
  std::vector<double> all(static_cast<std::size_t>(offsets.back() + counts.back()));
  MPI_Allgatherv(flat.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(),
                 MPI_DOUBLE, MPI_COMM_WORLD);
  std::vector<Interval> intervals;
  for (std::size_t i = 0; i + 1 < all.size(); i += 2) intervals.emplace_back(all[i], all[i + 1]);
  return intervals;
}

// Each writer takes `rounds` turns writing (sleeping) 5 + 5*rank ms; rank `failing` throws in
// its second turn. Returns every writer's intervals.
std::vector<Interval> take_turns(int concurrent, int rounds, int failing = -1) {
  ecluse::Accounting accounting;
  ecluse::WriteScheduler scheduler(MPI_COMM_WORLD, concurrent, "test");
  std::vector<Interval> mine;
  for (int round = 0; round < rounds; ++round) {
    try {
      const ecluse::TurnScope turn(&scheduler, accounting);
      const double start = ecluse::wall_clock();
      std::this_thread::sleep_for(std::chrono::milliseconds(5 + 5 * rank_of()));
      mine.emplace_back(start, ecluse::wall_clock());
      if (rank_of() == failing && round == 1) throw std::runtime_error("disk full");
    } catch (const std::runtime_error&) {
    }
  }
  scheduler.leave();
  EXPECT_EQ(scheduler.waits().count, static_cast<std::uint64_t>(rounds));
  return gather_intervals(mine);
}

TEST(WriteScheduler, AtMostOneWriterAtOnce) {
  const auto all = take_turns(1, 4);
  EXPECT_EQ(all.size(), 16u);
  EXPECT_EQ(most_at_once(all), 1);
}

TEST(WriteScheduler, AtMostTwoWritersAtOnce) {
  const auto all = take_turns(2, 4);
  EXPECT_EQ(all.size(), 16u);
  EXPECT_EQ(most_at_once(all), 2);  // two chains of sleeping writers do overlap
}

TEST(WriteScheduler, WritersWithFewerRoundsDoNotHangTheOthers) {
  const int rounds = 1 + rank_of();  // 1, 2, 3, 4 rounds
  const auto all = take_turns(1, rounds);
  EXPECT_EQ(all.size(), 10u);
  EXPECT_EQ(most_at_once(all), 1);
}

TEST(WriteScheduler, AFailingWriteHandsTheTurnOn) {
  const auto all = take_turns(1, 3, /*failing=*/1);
  EXPECT_EQ(all.size(), 12u);
  EXPECT_EQ(most_at_once(all), 1);
}

// ---- Through the API ----

constexpr int kIterations = 3;
constexpr int kCells = 64;

std::string config(const std::string& dir, const std::string& dedicated, int writers_at_once,
                   const std::string& mode, const std::string& sync = "no") {
  return R"(<simulation name="sched" xmlns="urn:ecluse:config:1"><architecture>
    <domains count="1"/>)" +
         dedicated + R"(<buffer size="1MiB"/><virtual-nodes ranks-per-node="2"/>
    </architecture><data>
    <layout name="l" type="double" dimensions=")" +
         std::to_string(kCells) + R"("/>
    <variable name="field" layout="l"/>
    </data><storage><store name="s" type="HDF5"><option key="FileMode">)" +
         mode + R"(</option><option key="FilesPath">)" + dir +
         R"(</option><option key="ConcurrentWriters">)" + std::to_string(writers_at_once) +
         R"(</option><option key="Sync">)" + sync +
         R"(</option></store></storage><log LogLevel="error" FileName=")" + dir +
         R"(/log"/></simulation>)";
}

std::vector<double> values(int iteration, int source) {
  std::vector<double> v(kCells);
  for (int i = 0; i < kCells; ++i)
    v[static_cast<std::size_t>(i)] = iteration * 1e6 + source * 1e3 + i;
  return v;
}

// Runs the iterations; returns (is_client, this rank's schedule.turns after the run, or -1).
std::pair<bool, double> run(const std::string& xml, int failing_iteration_rank = -1) {
  EXPECT_EQ(ecluse_initialize_string(xml.c_str(), MPI_COMM_WORLD), ECLUSE_OK);
  int is_client = 0;
  EXPECT_EQ(ecluse_start(&is_client), ECLUSE_OK);
  if (is_client) {
    MPI_Comm comm = MPI_COMM_NULL;
    EXPECT_EQ(ecluse_client_comm_get(&comm), ECLUSE_OK);
    int source = 0;
    MPI_Comm_rank(comm, &source);
    for (int it = 0; it < kIterations; ++it) {
      const auto v = values(it, source);
      EXPECT_EQ(ecluse_write("field", v.data()), ECLUSE_OK);
      const int status = ecluse_end_iteration();
      const bool fails = it == 1 && rank_of() == failing_iteration_rank;
      EXPECT_EQ(status, fails ? ECLUSE_IO_ERROR : ECLUSE_OK) << "iteration " << it;
    }
    EXPECT_EQ(ecluse_stop(), ECLUSE_OK);
  }
  double turns = -1;
  if (ecluse_get_statistic("schedule.turns", &turns) != ECLUSE_OK) turns = -1;
  EXPECT_EQ(ecluse_finalize(), ECLUSE_OK);
  return {is_client != 0, turns};
}

// Every client's block of every iteration is in exactly one file, bit for bit.
void expect_stored_once(const std::string& dir, int clients, int missing_file_iteration = -1) {
  for (int it = 0; it < kIterations; ++it) {
    std::vector<int> found(static_cast<std::size_t>(clients));
    for (const auto& entry : fs::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("sched_It" + std::to_string(it) + "_", 0) != 0) continue;
      if (entry.is_directory()) continue;
      EXPECT_EQ(entry.path().extension(), ".h5") << name;
      for (int source = 0; source < clients; ++source) {
        const std::string path = "field/P" + std::to_string(source);
        if (!ecluse::test::dataset_exists(entry.path().string(), path)) continue;
        ++found[static_cast<std::size_t>(source)];
        EXPECT_EQ(ecluse::test::read_dataset(entry.path().string(), path).bytes,
                  ecluse::test::as_bytes(values(it, source)));
      }
    }
    for (int source = 0; source < clients; ++source) {
      const int expected = (it == missing_file_iteration && source == 1) ? 0 : 1;
      EXPECT_EQ(found[static_cast<std::size_t>(source)], expected)
          << "iteration " << it << " source " << source;
    }
  }
}

TEST(ScheduledStore, TimePartitioningClientsTakeTurns) {
  const std::string dir = ecluse::test::fresh_dir("sched_tp");
  const auto [client, turns] = run(config(dir, "", 1, "FilePerCore"));
  EXPECT_TRUE(client);
  EXPECT_EQ(turns, kIterations);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_of() == 0) expect_stored_once(dir, 4);
}

TEST(ScheduledStore, DedicatedCoresTakeTurns) {
  const std::string dir = ecluse::test::fresh_dir("sched_dc");
  const auto [client, turns] = run(config(dir, R"(<dedicated cores="1"/>)", 1, "FilePerCore"));
  if (!client) {
    EXPECT_EQ(turns, kIterations);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_of() == 0) expect_stored_once(dir, 2);
}

TEST(ScheduledStore, DedicatedNodesTakeTurns) {
  const std::string dir = ecluse::test::fresh_dir("sched_dn");
  const auto [client, turns] =
      run(config(dir, R"(<dedicated cores="0" nodes="1"/>)", 1, "FilePerCore"));
  if (!client) {
    EXPECT_EQ(turns, kIterations);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_of() == 0) expect_stored_once(dir, 2);
}

TEST(ScheduledStore, FilePerNodeNodesTakeTurns) {
  const std::string dir = ecluse::test::fresh_dir("sched_node");
  const auto [client, turns] = run(config(dir, "", 1, "FilePerNode"));
  EXPECT_TRUE(client);
  EXPECT_EQ(turns, rank_of() % 2 == 0 ? kIterations : -1);  // the node's first writer only
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_of() == 0) expect_stored_once(dir, 4);
}

// Writer 1's file of iteration 1 cannot be created (a directory has its part name): it fails,
// the others go on and store.
TEST(ScheduledStore, AFailingStoreDoesNotHangTheOthers) {
  const std::string dir = ecluse::test::fresh_dir("sched_fail");
  if (rank_of() == 0) fs::create_directory(dir + "/sched_It1_Pr1.h5.part");
  MPI_Barrier(MPI_COMM_WORLD);
  const auto [client, turns] = run(config(dir, "", 1, "FilePerCore"), /*failing=*/1);
  EXPECT_EQ(turns, kIterations);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_of() == 0) expect_stored_once(dir, 4, /*missing_file_iteration=*/1);
}

// With Sync="yes" the fsync is disk I/O of the write: it runs inside the writer's turn, so a
// slow fsync (40 ms here) never overlaps another writer's (it ran after the turn before).
TEST(ScheduledStore, TheFsyncOfSyncRunsInsideTheWritersTurn) {
  const std::string dir = fs::canonical(ecluse::test::fresh_dir("sched_sync")).string();
  g_slow_fsync_under = dir;
  g_fsyncs.clear();
  const auto [client, turns] = run(config(dir, "", 1, "FilePerCore", "yes"));
  g_slow_fsync_under.clear();
  EXPECT_EQ(turns, kIterations);
  EXPECT_EQ(g_fsyncs.size(), static_cast<std::size_t>(kIterations));
  const std::vector<Interval> all = gather_intervals(g_fsyncs);
  EXPECT_EQ(all.size(), static_cast<std::size_t>(4 * kIterations));
  EXPECT_EQ(most_at_once(all), 1);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_of() == 0) expect_stored_once(dir, 4);
}

}  // namespace
