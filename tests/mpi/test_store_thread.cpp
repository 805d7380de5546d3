// The servers' store thread: an iteration's blocks are released only once stored, a signal
// fires only after the iterations handed to the stores before it, failures still reach the
// clients, and the data read back is the same with the thread as without (ECLUSE_STORE_THREAD=0).
#include <gtest/gtest.h>
#include <mpi.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "BlockValues.hpp"
#include "TestSupport.hpp"
#include "accounting/Accounting.hpp"
#include "action/EventTable.hpp"
#include "config/ConfigLoader.hpp"
#include "ecluse/ecluse.h"
#include "server/BlockCollector.hpp"

namespace ecluse {
namespace {

using test::expect_ok;

// What the action saw when it ran: how many blocks were released by then.
int g_released = 0;
std::vector<int> g_released_when_fired;
std::vector<int> g_fired_iterations;

void probe(const std::string&, int, int iteration, const std::string&) {
  g_released_when_fired.push_back(g_released);
  g_fired_iterations.push_back(iteration);
}

std::string collector_config(const std::string& store) {
  return R"(<simulation name="st"><architecture><domains count="1"/></architecture><data>
    <layout name="l" type="double" dimensions="4"/><variable name="v" layout="l"/></data>
    <storage>)" +
         store + R"(</storage><actions><event name="probe" action="probe"/></actions>
    </simulation>)";
}

/** A BlockCollector of one client, with the writer of `store`, on MPI_COMM_SELF. */
class Collector {
 public:
  explicit Collector(const std::string& store)
      : config_(parse_config("st.xml", collector_config(store))),
        log_(config_.log, 0),
        writer_(config_, env(), log_, accounting_),
        events_(config_) {
    g_released = 0;
    g_released_when_fired.clear();
    g_fired_iterations.clear();
    events_.bind("probe", probe);
    collector_ = std::make_unique<BlockCollector>(config_, writer_, events_, log_, MPI_COMM_SELF, 1,
                                                  1, [](const BlockMessage&) { ++g_released; });
  }
  BlockCollector& get() { return *collector_; }
  void bind(const std::string& action, Action f) { events_.bind(action, std::move(f)); }
  /** One block of iteration `it` and its end. */
  void iteration(int it) {
    BlockMessage write;
    write.iteration = it;
    write.ndims = 1;
    write.dims[0] = 4;
    write.bytes = sizeof data_;
    collector_->on_write(write, data_);
    BlockMessage end;
    end.type = MessageType::EndIteration;
    end.iteration = it;
    collector_->on_end(end);
  }
  void signal(int it) {
    BlockMessage signal;
    signal.type = MessageType::Signal;
    signal.iteration = it;
    std::snprintf(signal.name, sizeof signal.name, "probe");
    collector_->on_signal(signal);
  }
  /** Collects until `released` blocks are released (bounded: fails after 10 s). */
  void collect_until(int released) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (g_released < released && std::chrono::steady_clock::now() < deadline) {
      collector_->collect_stored();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_EQ(g_released, released);
  }

 private:
  static StoreEnv env() {
    StoreEnv e;
    e.comm = MPI_COMM_SELF;
    e.node_comm = MPI_COMM_SELF;
    e.simulation = "st";
    return e;
  }
  Config config_;
  Log log_;
  Accounting accounting_;
  Writer writer_;
  EventTable events_;
  std::unique_ptr<BlockCollector> collector_;
  double data_[4] = {1, 2, 3, 4};
};

const std::string kNullStore = R"(<store name="n" type="null"/>)";

TEST(StoreThread, ReleasesAnIterationOnlyOnceCollectedAndSignalsWaitForIt) {
  Collector c(kNullStore);
  ASSERT_TRUE(c.get().stores_in_background());
  c.iteration(0);
  c.signal(1);               // sent after iteration 0 ended: must see it stored
  EXPECT_EQ(g_released, 0);  // on the store thread: held until collected
  EXPECT_TRUE(g_fired_iterations.empty());
  EXPECT_TRUE(c.get().storing());
  c.collect_until(1);
  ASSERT_EQ(g_fired_iterations, std::vector<int>{1});
  EXPECT_EQ(g_released_when_fired, std::vector<int>{1});
  c.get().flush_unended();
  EXPECT_FALSE(c.get().storing());
}

TEST(StoreThread, KeepsTheOrderOfSignalsAndIterations) {
  Collector c(kNullStore);
  c.iteration(0);
  c.signal(1);
  c.iteration(1);
  c.signal(2);
  c.iteration(2);
  c.collect_until(3);
  c.get().flush_unended();
  ASSERT_EQ(g_fired_iterations, (std::vector<int>{1, 2}));
  // The signal after iteration 0 fired once iteration 0 was released (at the latest once 1 was).
  EXPECT_GE(g_released_when_fired[0], 1);
  EXPECT_GE(g_released_when_fired[1], 2);
}

TEST(StoreThread, SignalWithNothingInFlightFiresAtOnce) {
  Collector c(kNullStore);
  c.signal(0);
  EXPECT_EQ(g_fired_iterations, std::vector<int>{0});
}

TEST(StoreThread, OffWithEnvironmentZero) {
  setenv("ECLUSE_STORE_THREAD", "0", 1);
  Collector c(kNullStore);
  unsetenv("ECLUSE_STORE_THREAD");
  EXPECT_FALSE(c.get().stores_in_background());
  c.iteration(0);
  EXPECT_EQ(g_released, 1);  // stored and released inside on_end, as before
  EXPECT_FALSE(c.get().storing());
  c.signal(1);
  EXPECT_EQ(g_fired_iterations, std::vector<int>{1});
}

/** A directory of this rank's own: the collector tests run on every rank, on MPI_COMM_SELF. */
std::string own_dir(const std::string& name) {
  return test::fresh_dir(name + "-" + std::to_string(test::world_rank()), MPI_COMM_SELF);
}

TEST(StoreThread, NotForStoresThatUseMpi) {
  const std::string dir = own_dir("store-thread-collective");
  Collector c(R"(<store name="c" type="HDF5"><option key="FileMode">Collective</option>
    <option key="FilesPath">)" +
              dir + "</option></store>");
  EXPECT_FALSE(c.get().stores_in_background());
}

TEST(StoreThread, FailureIsCountedOnceCollected) {
  const std::string dir = own_dir("store-thread-failure");
  Collector c(R"(<store name="h" type="HDF5"><option key="FilesPath">)" + dir +
              "</option></store>");
  ASSERT_TRUE(c.get().stores_in_background());
  ASSERT_EQ(::mkdir((dir + "/st_It0_Pr0.h5.part").c_str(), 0700), 0);  // the part is in the way
  c.iteration(0);
  c.iteration(1);
  c.collect_until(2);
  c.get().flush_unended();
  EXPECT_EQ(c.get().failures(), 1u);
  EXPECT_NE(c.get().first_failure().find("iteration 0 in store 'h'"), std::string::npos)
      << c.get().first_failure();
  EXPECT_TRUE(test::dataset_exists(dir + "/st_It1_Pr0.h5", "v/P0"));
}

// Sync="yes": the store thread writes the part, the completion thread fsyncs and renames it;
// an iteration is collected (released, signals fire) only once its file has its final name.
std::string g_sync_dir;
std::vector<int> g_published_when_fired;  // 1 if the file of the iteration before was there

void probe_published(const std::string&, int, int iteration, const std::string&) {
  struct stat info {};
  const std::string file = g_sync_dir + "/st_It" + std::to_string(iteration - 1) + "_Pr0.h5";
  g_published_when_fired.push_back(::stat(file.c_str(), &info) == 0 ? 1 : 0);
}

TEST(StoreThread, SyncedFilesHaveTheirNameBeforeTheirIterationIsCollected) {
  g_sync_dir = own_dir("store-thread-sync");
  g_published_when_fired.clear();
  Collector c(R"(<store name="h" type="HDF5"><option key="FilesPath">)" + g_sync_dir +
              R"(</option><option key="Sync">yes</option></store>)");
  ASSERT_TRUE(c.get().stores_in_background());
  c.bind("probe", probe_published);
  for (int it = 0; it < 4; ++it) {
    c.iteration(it);
    c.signal(it + 1);
  }
  c.collect_until(4);
  c.get().flush_unended();
  EXPECT_EQ(g_published_when_fired, (std::vector<int>{1, 1, 1, 1}));
  EXPECT_EQ(c.get().failures(), 0u);
  for (const auto& entry : std::filesystem::directory_iterator(g_sync_dir)) {
    EXPECT_FALSE(entry.path().string().ends_with(".part")) << entry.path();
  }
}

// The rename runs on the completion thread: its failure is still counted for its iteration,
// and the next iteration is stored.
TEST(StoreThread, CompletionFailureIsCountedForItsIteration) {
  const std::string dir = own_dir("store-thread-completion-failure");
  Collector c(R"(<store name="h" type="HDF5"><option key="FilesPath">)" + dir +
              R"(</option><option key="Sync">yes</option></store>)");
  // A non-empty directory under the final name: the part is written, the rename fails.
  ASSERT_EQ(::mkdir((dir + "/st_It0_Pr0.h5").c_str(), 0700), 0);
  ASSERT_EQ(::mkdir((dir + "/st_It0_Pr0.h5/x").c_str(), 0700), 0);
  c.iteration(0);
  c.iteration(1);
  c.collect_until(2);
  c.get().flush_unended();
  EXPECT_EQ(c.get().failures(), 1u);
  EXPECT_EQ(
      c.get().first_failure(),
      "iteration 0 in store 'h': cannot rename '" + dir + "/st_It0_Pr0.h5.part' to '" + dir +
          "/st_It0_Pr0.h5': Is a directory. Fix: let nothing else (another run, a directory) take "
          "that name, and keep FilesPath in place and writable while the run writes there");
  EXPECT_TRUE(test::dataset_exists(dir + "/st_It1_Pr0.h5", "v/P0"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/st_It0_Pr0.h5.part"));
}

// End to end: 1 client + 1 dedicated core or node, HDF5 FilePerCore, the store thread on or off.
// The action of the signal sent after each end_iteration finds that iteration's file published.
std::string g_dir;
int g_missing = 0, g_checked = 0;

void check_stored(const char*, int32_t, int32_t iteration, const char*) {
  struct stat info {};
  const std::string file = g_dir + "/e2e_It" + std::to_string(iteration - 1) + "_Pr0.h5";
  ++g_checked;
  if (::stat(file.c_str(), &info) != 0) ++g_missing;
}

std::string api_config(const std::string& dir, const std::string& dedicated) {
  return R"(<simulation name="e2e"><architecture><domains count="1"/>)" + dedicated +
         R"(<buffer size="2MiB"/></architecture><data>
    <layout name="l" type="double" dimensions="32768"/><variable name="v" layout="l"/></data>
    <storage><store name="h" type="HDF5"><option key="FilesPath">)" +
         dir + R"(</option></store></storage>
    <actions><event name="check" action="check_stored"/></actions></simulation>)";
}

void run_end_to_end(const std::string& dedicated, const char* thread_setting) {
  if (test::world_size() != 2) GTEST_SKIP() << "1 client + 1 server";
  g_dir = test::fresh_dir(std::string("store-thread-e2e-") + thread_setting);
  g_missing = g_checked = 0;
  setenv("ECLUSE_STORE_THREAD", thread_setting, 1);
  constexpr int kIterations = 12;  // more than the buffer holds (8 blocks)
  expect_ok(ecluse_initialize_string(api_config(g_dir, dedicated).c_str(), MPI_COMM_WORLD));
  unsetenv("ECLUSE_STORE_THREAD");
  expect_ok(ecluse_bind("check", check_stored));
  int is_client = 0;
  expect_ok(ecluse_start(&is_client));
  std::vector<double> values(32768);
  if (is_client) {
    for (int it = 0; it < kIterations; ++it) {
      for (std::size_t i = 0; i < values.size(); ++i) values[i] = it * 1e6 + double(i);
      expect_ok(ecluse_write("v", values.data()));
      expect_ok(ecluse_end_iteration());
      expect_ok(ecluse_signal("check"));
    }
    expect_ok(ecluse_stop());
  } else {
    EXPECT_EQ(g_checked, kIterations);
    EXPECT_EQ(g_missing, 0);
  }
  expect_ok(ecluse_finalize());
  if (!is_client) return;
  for (int it = 0; it < kIterations; ++it) {
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = it * 1e6 + double(i);
    const test::Dataset d =
        test::read_dataset(g_dir + "/e2e_It" + std::to_string(it) + "_Pr0.h5", "v/P0");
    EXPECT_EQ(d.bytes, test::as_bytes(values)) << "iteration " << it;
  }
}

const char* const kCore = R"(<dedicated cores="1"/><virtual-nodes ranks-per-node="2"/>)";
const char* const kNode = R"(<dedicated nodes="1"/><virtual-nodes ranks-per-node="1"/>)";

TEST(StoreThreadApi, DedicatedCoreWithThread) {
  run_end_to_end(kCore, "1");
}
TEST(StoreThreadApi, DedicatedCoreWithoutThread) {
  run_end_to_end(kCore, "0");
}
TEST(StoreThreadApi, DedicatedNodeWithThread) {
  run_end_to_end(kNode, "1");
}
TEST(StoreThreadApi, DedicatedNodeWithoutThread) {
  run_end_to_end(kNode, "0");
}

}  // namespace
}  // namespace ecluse
