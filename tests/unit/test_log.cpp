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

}  // namespace
}  // namespace ecluse
