// A temporary directory standing for "/" in the energy and frequency tests: files are written
// at their kernel paths (/sys/..., /proc/...) and read back to check what the code wrote.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ecluse::test {

class FakeTree {
 public:
  FakeTree() {
    std::string pattern = (std::filesystem::temp_directory_path() / "ecluse-energy-XXXXXX");
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    root_ = pattern;
  }
  ~FakeTree() {
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }
  FakeTree(const FakeTree&) = delete;
  FakeTree& operator=(const FakeTree&) = delete;

  [[nodiscard]] const std::string& root() const { return root_; }
  [[nodiscard]] std::string path(const std::string& absolute) const { return root_ + absolute; }

  void write(const std::string& absolute, const std::string& text) const {
    std::filesystem::create_directories(std::filesystem::path(path(absolute)).parent_path());
    std::ofstream(path(absolute), std::ios::trunc) << text;
  }
  [[nodiscard]] std::string read(const std::string& absolute) const {
    std::ifstream in(path(absolute));
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

 private:
  std::string root_;
};

}  // namespace ecluse::test
