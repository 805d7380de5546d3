// Command-line options of the workloads: `--key value` pairs and bare flags, checked against
// the names each program accepts so that a typo fails at once instead of running defaults.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace apps {

/** Thrown for an unknown option, a missing value or a value of the wrong form. */
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Options {
 public:
  /** valued: options followed by a value; flags: options without one. */
  Options(int argc, char** argv, std::set<std::string> valued, std::set<std::string> flags);

  [[nodiscard]] bool has(const std::string& key) const;
  [[nodiscard]] std::string text(const std::string& key, const std::string& fallback) const;
  /** A positive integer. */
  [[nodiscard]] int positive(const std::string& key, int fallback) const;
  /** Positive sizes written `AxBxC`, exactly `count` of them. */
  [[nodiscard]] std::vector<int> extent(const std::string& key, const std::string& fallback,
                                        std::size_t count) const;
  /** Comma-separated names. */
  [[nodiscard]] std::vector<std::string> names(const std::string& key,
                                               const std::string& fallback) const;

 private:
  void take(const std::string& arg, const char* next, int& i);

  std::set<std::string> valued_;
  std::set<std::string> flags_;
  std::map<std::string, std::string> values_;
};

/** Splits text at each separator; empty pieces are kept so that they can be reported. */
std::vector<std::string> split(const std::string& text, char separator);

/** Runs parse; on a UsageError prints "<program>: <message>" and the usage on rank 0's stderr
 * and returns false (every rank parsed the same arguments, so every rank returns false). */
bool parse_or_explain(const char* program, const char* usage, const std::function<void()>& parse);

}  // namespace apps
