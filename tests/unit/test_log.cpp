// Log: a <log FileName> whose directory does not exist yet gets it (Damaris's examples all log
// into "log/"); a file that cannot be opened falls back to stderr and the first rank says so.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/Log.hpp"

namespace ecluse {
namespace {

namespace fs = std::filesystem;

fs::path fresh(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("ecluse-log-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

std::string text_of(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

TEST(Log, CreatesTheDirectoryOfItsFile) {
  const fs::path dir = fresh("mkdir");
  LogConfig config;
  config.file = (dir / "log" / "sim").string();
  {
    Log log(config, 3);
    log.warning("hello");
  }
  EXPECT_EQ(text_of(dir / "log" / "sim.3.log"), "[ecluse 3] warning: hello\n");
  fs::remove_all(dir);
}

TEST(Log, AFileThatCannotBeOpenedFallsBackToStderrAndRankZeroSaysSo) {
  const fs::path dir = fresh("blocked");
  fs::create_directories(dir);
  std::ofstream(dir / "log") << "a file where the directory should be";
  LogConfig config;
  config.file = (dir / "log" / "sim").string();
  for (int rank : {0, 1}) {
    testing::internal::CaptureStderr();
    {
      Log log(config, rank);
      log.warning("on stderr");
    }
    const std::string err = testing::internal::GetCapturedStderr();
    const std::string path = (dir / "log" / "sim").string() + "." + std::to_string(rank) + ".log";
    const std::string notice = "[ecluse 0] warning: cannot open the log file '" + path +
                               "' (Not a directory): logging to stderr; check <log FileName> "
                               "and that its directory is writable.\n";
    const std::string line = "[ecluse " + std::to_string(rank) + "] warning: on stderr\n";
    EXPECT_EQ(err, rank == 0 ? notice + line : line);
  }
  fs::remove_all(dir);
}

// Damaris says its warnings and errors on stderr: with a log file, the first kStderrCopies of a
// rank are said there too (info stays in the file), then one line says where the rest are; the
// configuration's warnings always are.
TEST(Log, WarningsAndErrorsOfALogFileAreAlsoSaidOnStderrUpToALimit) {
  const fs::path dir = fresh("copies");
  LogConfig config;
  config.file = (dir / "sim").string();
  testing::internal::CaptureStderr();
  {
    Log log(config, 2);
    log.info("only in the file");
    for (int i = 0; i < Log::kStderrCopies + 2; ++i) {
      if (i % 2) {
        log.error("e" + std::to_string(i));
      } else {
        log.warning("w" + std::to_string(i));
      }
    }
    log.warnings_also_on_stderr({"configuration"});
  }
  const std::string err = testing::internal::GetCapturedStderr();
  std::string expected, file = "[ecluse 2] info: only in the file\n";
  for (int i = 0; i < Log::kStderrCopies + 2; ++i) {
    const std::string line = i % 2 ? "[ecluse 2] error: e" + std::to_string(i) + "\n"
                                   : "[ecluse 2] warning: w" + std::to_string(i) + "\n";
    file += line;
    if (i < Log::kStderrCopies) expected += line;
  }
  expected +=
      "[ecluse 2] warning: further warnings and errors of this rank are in its log file only "
      "(<log FileName>)\n[ecluse 2] warning: configuration\n";
  EXPECT_EQ(err, expected);
  EXPECT_EQ(text_of(dir / "sim.2.log"), file + "[ecluse 2] warning: configuration\n");
  fs::remove_all(dir);
}

// A log file is appended to: the second run's lines begin after one line that says so; a new
// file gets none.
TEST(Log, ARunAppendingToAnEarlierRunsLogSaysWhereItBegins) {
  const fs::path dir =
      fs::temp_directory_path() / ("ecluse_log_append_" + std::to_string(getpid()));
  fs::remove_all(dir);
  LogConfig config;
  config.file = (dir / "sim").string();
  testing::internal::CaptureStderr();
  { Log(config, 1).warning("first run"); }
  { Log(config, 1).warning("second run"); }
  (void)testing::internal::GetCapturedStderr();
  const std::string text = text_of(dir / "sim.1.log");
  const std::string head =
      "[ecluse 1] warning: first run\n[ecluse 1] info: ---- a new run (process " +
      std::to_string(getpid()) + ", ";
  EXPECT_EQ(text.rfind(head, 0), 0u) << text;
  const std::string tail = ") appends from here ----\n[ecluse 1] warning: second run\n";
  ASSERT_GE(text.size(), tail.size());
  EXPECT_EQ(text.substr(text.size() - tail.size()), tail) << text;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ecluse
