// Where the report and the opt-in per-iteration trace go, and starting the trace on each rank.
#include <cstdlib>
#include <filesystem>

#include "report/RunReport.hpp"

namespace ecluse {

namespace {

// Replaces every `key` once, searching after each replacement (a value holding the key must
// not loop).
std::string replaced(std::string text, const std::string& key, const std::string& value) {
  for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size())) {
    text.replace(at, key.size(), value);
  }
  return text;
}

}  // namespace

std::string report_path(const Config& config) {
  const char* env = std::getenv("ECLUSE_REPORT");
  const std::string path = env && *env ? env : config.report.file;
  if (path == "none" || path.empty()) return "";
  return replaced(path, "{simulation}", config.simulation);
}

std::string trace_pattern(const Config& config) {
  const char* env = std::getenv("ECLUSE_TRACE");
  std::string path = env && *env ? env : config.report.trace;
  if (path == "none" || path.empty()) return "";
  path = replaced(path, "{simulation}", config.simulation);
  if (path.find("{rank}") == std::string::npos) path += ".{rank}";
  std::error_code ignored;  // a relative path stays relative when the directory is unknown
  const auto absolute = std::filesystem::absolute(path, ignored);
  return absolute.empty() ? path : absolute.string();
}

void start_trace(Accounting& accounting, const Config& config, int rank, Role role, Log& log) {
  const std::string pattern = trace_pattern(config);
  if (pattern.empty()) return;
  const std::string path = replaced(pattern, "{rank}", std::to_string(rank));
  const std::string header = "ecluse-trace/1 simulation=" + config.simulation +
                             " rank=" + std::to_string(rank) +
                             " role=" + std::string(name_of(role));
  auto trace =
      std::make_unique<TraceFile>(path, header, [&log](const std::string& m) { log.warning(m); });
  if (trace->open()) accounting.trace_to(std::move(trace));
}

}  // namespace ecluse
