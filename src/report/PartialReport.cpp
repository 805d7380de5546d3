// Merging the survivors' failures into one partial report, line by line: the file is ours, one
// failure per line, so no JSON reader is needed.
#include "report/PartialReport.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "report/Json.hpp"
#include "report/RunReport.hpp"

namespace ecluse {

namespace {

constexpr const char* kFailureLine = "    {";
constexpr const char* kNotListed = "  \"failures_not_listed\": ";

// flock on the report's directory: nothing left behind; a holder only rewrites a small file,
// so two seconds without the lock means something is wrong and the report is given up.
class DirectoryLock {
 public:
  explicit DirectoryLock(const std::string& file) {
    const auto directory = std::filesystem::path(file).parent_path();
    fd_ = ::open(directory.empty() ? "." : directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ < 0) return;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      if (std::chrono::steady_clock::now() > deadline) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    locked_ = true;
  }
  ~DirectoryLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;
  [[nodiscard]] bool locked() const { return locked_; }

 private:
  int fd_ = -1;
  bool locked_ = false;
};

Json lost_json(const RunFailure& f) {
  if (f.lost_role.empty() && f.lost_world_rank < 0 && f.lost_pid < 0) return {};
  Json lost = Json::object();
  lost["role"] = f.lost_role.empty() ? Json() : Json(f.lost_role);
  lost["world_rank"] = f.lost_world_rank >= 0 ? Json(f.lost_world_rank) : Json();
  lost["pid"] = f.lost_pid >= 0 ? Json(static_cast<std::int64_t>(f.lost_pid)) : Json();
  return lost;
}

Json lost_iterations_json(const RunFailure& f) {
  if (f.first_lost_iteration < 0) return {};
  if (f.and_later) {
    return Json::object()
        .set("count", Json())
        .set("first", f.first_lost_iteration)
        .set("last", Json())
        .set("and_later", true);
  }
  return Json::object()
      .set("count", f.last_lost_iteration - f.first_lost_iteration + 1)
      .set("first", f.first_lost_iteration)
      .set("last", f.last_lost_iteration);
}

std::string failure_line(const FailureWitness& w, const RunFailure& f) {
  Json entry = Json::object();
  entry["seen_by"] = Json::object()
                         .set("world_rank", w.world_rank)
                         .set("role", w.role)
                         .set("pid", static_cast<std::int64_t>(::getpid()));
  entry["cause"] = f.cause;
  entry["lost_process"] = lost_json(f);
  entry["lost_iterations"] = lost_iterations_json(f);
  return kFailureLine + entry.dump(0).substr(1);
}

// The lines that open the file: the same for every survivor of one job.
std::vector<std::string> header(const FailureWitness& w) {
  return {"{",
          "  \"schema\": \"ecluse-report/2\",",
          "  \"simulation\": " + Json(w.simulation).dump(0) + ",",
          "  \"config\": " + Json(w.config).dump(0) + ",",
          "  \"approach\": " + Json(w.approach).dump(0) + ",",
          "  \"job\": " + Json(w.job).dump(0) + ",",
          "  \"complete\": false,"};
}

struct Listed {
  std::vector<std::string> failures;
  long long not_listed = 0;
};

// The failures already in the file, if it is this job's partial report.
Listed read_listed(const std::string& path, const std::vector<std::string>& expected) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  Listed listed;
  if (lines.size() < expected.size()) return listed;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (lines[i] != expected[i]) return listed;
  }
  for (std::size_t i = expected.size(); i < lines.size(); ++i) {
    std::string line = lines[i];
    if (line.rfind(kNotListed, 0) == 0) {
      listed.not_listed = std::atoll(line.c_str() + std::string(kNotListed).size());
    } else if (line.rfind(kFailureLine, 0) == 0) {
      if (line.back() == ',') line.pop_back();
      listed.failures.push_back(line);
    }
  }
  return listed;
}

}  // namespace

bool add_to_partial_report(const std::string& path, const FailureWitness& witness,
                           const RunFailure& failure) {
  const DirectoryLock lock(path);
  if (!lock.locked()) return false;
  const std::vector<std::string> head = header(witness);
  Listed listed = read_listed(path, head);
  if (listed.failures.size() < static_cast<std::size_t>(kMostListedFailures)) {
    listed.failures.push_back(failure_line(witness, failure));
  } else {
    ++listed.not_listed;
  }
  std::string text;
  for (const std::string& line : head) text += line + "\n";
  text += kNotListed + std::to_string(listed.not_listed) + ",\n";
  text += "  \"failures\": [\n";
  for (std::size_t i = 0; i < listed.failures.size(); ++i) {
    text += listed.failures[i] + (i + 1 < listed.failures.size() ? ",\n" : "\n");
  }
  text += "  ]\n}\n";
  if (!write_file_whole(path, text)) return false;
  note_report_for_launcher(path);  // `ecluse run` then exits non-zero for it
  return true;
}

namespace {

// This process's failed initializes noted since its last successful one: a success withdraws
// them (initialize runs on the program's thread, one call at a time).
struct NotedFailures {
  std::vector<std::string> messages;
  int world_rank = -1;
  int superseded_notes = 0;
};

NotedFailures& noted_failures() {
  static NotedFailures noted;
  return noted;
}

std::string failed_initialize_note() {
  return launcher_copy_path("initialize-failed." + std::to_string(::getpid()) + ".json");
}

}  // namespace

void note_failed_initialize_for_launcher(const std::string& message, int world_rank) {
  const std::string path = failed_initialize_note();
  if (path.empty()) return;
  RunFailure failure;
  failure.cause = "initialize failed: " + message +
                  " (nothing of this process was handed to Ecluse: its later calls failed too)";
  if (add_to_partial_report(path, FailureWitness{"", "", "", "", world_rank, ""}, failure) &&
      noted_failures().messages.size() < static_cast<std::size_t>(kMostListedFailures)) {
    noted_failures().messages.push_back(message);
    noted_failures().world_rank = world_rank;
  }
}

void note_unfinalized_for_launcher(const std::string& losses, int world_rank) {
  if (losses.empty() && world_rank != 0) return;
  const std::string path =
      launcher_copy_path("unfinalized." + std::to_string(::getpid()) + ".json");
  if (path.empty()) return;
  RunFailure failure;
  failure.cause = losses.empty() ? std::string(kUnfinalizedClean)
                                 : std::string(kUnfinalizedWithLosses) + losses;
  add_to_partial_report(path, FailureWitness{"", "", "", "", world_rank, ""}, failure);
}

void withdraw_failed_initialize_for_launcher() {
  NotedFailures& noted = noted_failures();
  if (noted.messages.empty()) return;
  // The superseded failures first, then the note removed: the launcher reads neither before the
  // command ended, and a note it lists but cannot find is one withdrawn.
  const std::string superseded =
      launcher_copy_path("initialize-superseded." + std::to_string(::getpid()) + "." +
                         std::to_string(noted.superseded_notes++) + ".json");
  for (const std::string& message : noted.messages) {
    RunFailure failure;
    failure.cause = kSupersededInitialize + message;
    add_to_partial_report(superseded, FailureWitness{"", "", "", "", noted.world_rank, ""},
                          failure);
  }
  const std::string path = failed_initialize_note();
  const DirectoryLock lock(path);
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
  noted.messages.clear();
}

}  // namespace ecluse
