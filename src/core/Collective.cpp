// Collective error agreement, variable-length exchange, group numbering, all bounded in time.
#include "core/Collective.hpp"

#include <sched.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <utility>

#include "core/RunFailure.hpp"
#include "core/Watchdog.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {

namespace {

using Clock = std::chrono::steady_clock;

// Seconds an MPI_Abort of a timeout gets to end the job before the process ends itself.
constexpr int kAbortGrace = 10;

thread_local std::string current_wait = "in a collective of Ecluse";
thread_local WaitScope::Bound current_bound = WaitScope::Bound::Timeout;

// Yields first (a collective usually completes within microseconds), then sleeps 50 us doubling
// up to 1 ms: a blocking MPI call would busy-poll a core that an oversubscribed peer may need.
class Pause {
 public:
  void next() {
    if (++polls_ < kYields) {
      sched_yield();
      return;
    }
    std::this_thread::sleep_for(sleep_);
    sleep_ = std::min(sleep_ * 2, std::chrono::microseconds(1000));
  }

 private:
  static constexpr int kYields = 100;
  int polls_ = 0;
  std::chrono::microseconds sleep_{50};
};

int size_of(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  return size;
}

}  // namespace

std::chrono::seconds wait_timeout() {
  const char* env = std::getenv("ECLUSE_TIMEOUT");
  const long seconds = env ? std::strtol(env, nullptr, 10) : 0;
  // At most 30 days: deadlines are computed as now + timeout and must not overflow the clock.
  constexpr long kLongest = 30L * 24 * 3600;
  return std::chrono::seconds(seconds > 0 ? std::min(seconds, kLongest) : 600);
}

void abort_on_timeout(const std::string& what) {
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  end_on_timeout(rank, what, true);
}

namespace {

// "ECLUSE_TIMEOUT=600 s", or the bound of a paced wait without it.
std::string bound_text() {
  const std::string seconds = std::to_string(current_wait_bound().count()) + " s";
  if (current_wait_bound() == wait_timeout()) return "ECLUSE_TIMEOUT=" + seconds;
  return seconds + ", ECLUSE_TIMEOUT not set";
}

}  // namespace

void end_on_timeout(int world_rank, const std::string& what, bool may_abort) {
  const std::string bound = bound_text();
  std::fprintf(stderr, "ecluse: world rank %d: timeout (%s) waiting %s\n", world_rank,
               bound.c_str(), what.c_str());
  std::fflush(stderr);
  report_failure({"timeout (" + bound + ") waiting " + what, "", -1, -1, -1, -1});
  // The launcher forwards our stderr through a pipe; an abort that kills its forwarder at once
  // can lose the one line that says why (seen with MPICH's Hydra).
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  // Another thread inside MPI: only MPI_THREAD_MULTIPLE allows MPI_Abort from this one; the
  // launcher ends the other processes when this one exits without MPI_Finalize.
  if (may_abort) {
    // MPI_Abort itself may not return nor end us when a peer is dead (seen with Open MPI under
    // --enable-recovery): the process ends in any case a little later.
    std::thread([] {
      std::this_thread::sleep_for(std::chrono::seconds(kAbortGrace));
      std::_Exit(kTimeoutExitCode);
    }).detach();
    MPI_Abort(MPI_COMM_WORLD, kTimeoutExitCode);
  }
  std::_Exit(kTimeoutExitCode);
}

bool timeout_is_set() {
  return std::getenv("ECLUSE_TIMEOUT") != nullptr;
}

std::chrono::seconds current_wait_bound() {
  if (current_bound == WaitScope::Bound::Timeout || timeout_is_set()) return wait_timeout();
  return kPacedWait;
}

WaitScope::WaitScope(std::string what, Bound bound)
    : previous_(std::exchange(current_wait, std::move(what))),
      previous_bound_(std::exchange(current_bound, bound)) {}

WaitScope::~WaitScope() {
  current_wait = std::move(previous_);
  current_bound = previous_bound_;
}

void complete(MPI_Request& request, MPI_Comm comm, const char* operation) {
  int done = 0;
  MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  if (done) return;
  const auto bound = current_wait_bound();
  const auto deadline = Clock::now() + bound;
  Pause pause;
  while (!done) {
    if (Clock::now() > deadline) {
      abort_on_timeout(current_wait + " (" + operation + " among " + std::to_string(size_of(comm)) +
                       " ranks): one of them died, or is blocked elsewhere (in a collective of the "
                       "simulation, say), or is slower than the timeout; see the other ranks' "
                       "output, or raise ECLUSE_TIMEOUT.");
    }
    pause.next();
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  }
}

void send_bounded(const void* data, int count, MPI_Datatype type, int to, int tag, MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Isend(data, count, type, to, tag, comm, &request);
  complete(request, comm, "MPI_Isend");
}

void receive_bounded(void* data, int count, MPI_Datatype type, int from, int tag, MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Irecv(data, count, type, from, tag, comm, &request);
  complete(request, comm, "MPI_Irecv");
}

int probe_bounded(int from, int tag, MPI_Comm comm, MPI_Datatype type) {
  const auto deadline = Clock::now() + current_wait_bound();
  Pause pause;
  int found = 0;
  MPI_Status status;
  for (MPI_Iprobe(from, tag, comm, &found, &status); !found;
       MPI_Iprobe(from, tag, comm, &found, &status)) {
    if (Clock::now() > deadline) {
      abort_on_timeout(current_wait + " (MPI_Iprobe for a message from rank " +
                       std::to_string(from) +
                       "): it died or is blocked elsewhere; see its output, "
                       "or raise ECLUSE_TIMEOUT.");
    }
    pause.next();
  }
  int count = 0;
  MPI_Get_count(&status, type, &count);
  return count;
}

int allreduce_int(MPI_Comm comm, int value, MPI_Op op) {
  int result = 0;
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallreduce(&value, &result, 1, MPI_INT, op, comm, &request);
  complete(request, comm, "MPI_Iallreduce");
  return result;
}

void barrier(MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(comm, &request);
  complete(request, comm, "MPI_Ibarrier");
}

MPI_Comm duplicate(MPI_Comm comm) {
  MPI_Comm copy = MPI_COMM_NULL;
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Comm_idup(comm, &copy, &request);
  complete(request, comm, "MPI_Comm_idup");
  return copy;
}

std::string broadcast_string(MPI_Comm comm, const std::string& text, int root) {
  unsigned long long size = text.size();
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibcast(&size, 1, MPI_UNSIGNED_LONG_LONG, root, comm, &request);
  complete(request, comm, "MPI_Ibcast");
  std::string out = text;
  out.resize(size);
  MPI_Ibcast(out.data(), static_cast<int>(size), MPI_CHAR, root, comm, &request);
  complete(request, comm, "MPI_Ibcast");
  return out;
}

namespace {

std::vector<int> offsets_of(const std::vector<int>& lengths) {
  std::vector<int> offsets(lengths.size(), 0);
  for (std::size_t i = 1; i < lengths.size(); ++i) offsets[i] = offsets[i - 1] + lengths[i - 1];
  return offsets;
}

std::vector<int> gather_lengths(MPI_Comm comm, int length, int root) {
  std::vector<int> lengths(static_cast<std::size_t>(size_of(comm)), 0);
  MPI_Request request = MPI_REQUEST_NULL;
  if (root == kEveryRank) {
    MPI_Iallgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm, &request);
  } else {
    MPI_Igather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, root, comm, &request);
  }
  complete(request, comm, root == kEveryRank ? "MPI_Iallgather" : "MPI_Igather");
  return lengths;
}

}  // namespace

std::vector<std::string> gather_strings(MPI_Comm comm, const std::string& mine, int root) {
  const bool everywhere = root == kEveryRank;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const int length = static_cast<int>(mine.size());
  const std::vector<int> lengths = gather_lengths(comm, length, root);
  const std::vector<int> offsets = offsets_of(lengths);
  std::string all(static_cast<std::size_t>(offsets.back() + lengths.back()), '\0');
  MPI_Request request = MPI_REQUEST_NULL;
  if (everywhere) {
    MPI_Iallgatherv(mine.data(), length, MPI_BYTE, all.data(), lengths.data(), offsets.data(),
                    MPI_BYTE, comm, &request);
  } else {
    MPI_Igatherv(mine.data(), length, MPI_BYTE, all.data(), lengths.data(), offsets.data(),
                 MPI_BYTE, root, comm, &request);
  }
  complete(request, comm, everywhere ? "MPI_Iallgatherv" : "MPI_Igatherv");
  std::vector<std::string> parts;
  if (!everywhere && rank != root) return parts;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    parts.push_back(
        all.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(lengths[i])));
  }
  return parts;
}

// The first rank of each group counts itself; an exclusive scan numbers the groups in order.
GroupNumber number_groups(MPI_Comm comm, MPI_Comm group) {
  int rank = 0, group_rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_rank(group, &group_rank);
  int leader = group_rank == 0 ? 1 : 0;
  int before = 0;
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iexscan(&leader, &before, 1, MPI_INT, MPI_SUM, comm, &request);
  complete(request, comm, "MPI_Iexscan");
  GroupNumber number;
  number.index = rank == 0 ? 0 : before;  // MPI_Exscan leaves rank 0's result undefined
  MPI_Ibcast(&number.index, 1, MPI_INT, 0, group, &request);
  complete(request, group, "MPI_Ibcast");
  number.count = allreduce_int(comm, leader, MPI_SUM);
  return number;
}

namespace {

// A bounded barrier first (every rank is there), then the split under the watchdog: a rank that
// dies between the two ends the job within ECLUSE_TIMEOUT instead of hanging it.
template <class Split>
MPI_Comm split_after_barrier(MPI_Comm comm, const char* operation, Split split) {
  barrier(comm);
  const BlockingCall call(comm, operation);
  MPI_Comm result = MPI_COMM_NULL;
  split(&result);
  return result;
}

}  // namespace

MPI_Comm split_bounded(MPI_Comm comm, int color, int key) {
  return split_after_barrier(comm, "MPI_Comm_split",
                             [&](MPI_Comm* result) { MPI_Comm_split(comm, color, key, result); });
}

MPI_Comm split_shared_bounded(MPI_Comm comm, int key) {
  return split_after_barrier(comm, "MPI_Comm_split_type", [&](MPI_Comm* result) {
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, key, MPI_INFO_NULL, result);
  });
}

void run_collectively(MPI_Comm comm, const std::function<void()>& step) {
  int status = ECLUSE_OK;
  std::string message;
  try {
    step();
  } catch (const Error& e) {
    status = e.status();
    message = e.what();
  } catch (const std::exception& e) {
    status = ECLUSE_ERROR_UNKNOWN;
    message = e.what();
  }
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const int first = allreduce_int(comm, status == ECLUSE_OK ? INT_MAX : rank, MPI_MIN);
  if (first == INT_MAX) return;
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibcast(&status, 1, MPI_INT, first, comm, &request);
  complete(request, comm, "MPI_Ibcast");
  message = broadcast_string(comm, message, first);
  throw Error(static_cast<ecluse_status>(status), message);
}

}  // namespace ecluse
