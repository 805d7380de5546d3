// Command-line options of the workloads: `--key value` pairs and bare flags.
// Every rank parses the same arguments, so every rank reaches the same verdict.
#include "Options.hpp"

#include <mpi.h>

#include <cstdio>
#include <utility>

namespace apps {

namespace {

int parse_positive(const std::string& key, const std::string& value) {
  std::size_t used = 0;
  long parsed = 0;
  try {
    parsed = std::stol(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || parsed <= 0 || parsed > 1'000'000'000) {
    throw UsageError("--" + key + " expects a positive integer, got '" + value + "'");
  }
  return static_cast<int>(parsed);
}

}  // namespace

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> pieces(1);
  for (char c : text) {
    if (c == separator) {
      pieces.emplace_back();
    } else {
      pieces.back() += c;
    }
  }
  return pieces;
}

Options::Options(int argc, char** argv, std::set<std::string> valued, std::set<std::string> flags)
    : valued_(std::move(valued)), flags_(std::move(flags)) {
  for (int i = 1; i < argc; ++i) take(argv[i], i + 1 < argc ? argv[i + 1] : nullptr, i);
}

void Options::take(const std::string& arg, const char* next, int& i) {
  const std::string key = arg.rfind("--", 0) == 0 ? arg.substr(2) : "";
  if (flags_.count(key)) {
    values_[key] = "1";
  } else if (!valued_.count(key)) {
    throw UsageError("unknown option '" + arg + "'");
  } else if (next == nullptr) {
    throw UsageError("option '" + arg + "' needs a value");
  } else {
    values_[key] = next;
    ++i;
  }
}

bool Options::has(const std::string& key) const {
  return values_.count(key) > 0;
}

std::string Options::text(const std::string& key, const std::string& fallback) const {
  const auto found = values_.find(key);
  return found == values_.end() ? fallback : found->second;
}

int Options::positive(const std::string& key, int fallback) const {
  return has(key) ? parse_positive(key, text(key, "")) : fallback;
}

std::vector<int> Options::extent(const std::string& key, const std::string& fallback,
                                 std::size_t count) const {
  const std::vector<std::string> pieces = split(text(key, fallback), 'x');
  if (pieces.size() != count) {
    throw UsageError("--" + key + " expects " + std::to_string(count) +
                     " sizes separated by 'x', got '" + text(key, fallback) + "'");
  }
  std::vector<int> sizes;
  for (const std::string& piece : pieces) sizes.push_back(parse_positive(key, piece));
  return sizes;
}

bool parse_or_explain(const char* program, const char* usage, const std::function<void()>& parse) {
  try {
    parse();
    return true;
  } catch (const UsageError& e) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) std::fprintf(stderr, "%s: %s\n%s", program, e.what(), usage);
    return false;
  }
}

std::vector<std::string> Options::names(const std::string& key, const std::string& fallback) const {
  return split(text(key, fallback), ',');
}

}  // namespace apps
