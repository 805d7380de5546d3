// The opt-in per-iteration trace of one rank: one CSV line per iteration, written as the run
// goes through a stdio buffer, so that memory stays bounded however long the run.
#pragma once

#include <cstdio>
#include <functional>
#include <string>

#include "accounting/IterationSeries.hpp"

namespace ecluse {

class TraceFile {
 public:
  using Warn = std::function<void(const std::string&)>;
  /** Opens `path` (truncated) and writes its header; a failure is warned about and the run
   * goes on without a trace. */
  TraceFile(const std::string& path, const std::string& header, Warn warn);
  ~TraceFile();
  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;

  void write(const IterationRecord& r);
  /** Flushes and closes; a write that failed on the way is warned about once, here. */
  void close();
  [[nodiscard]] bool open() const { return file_ != nullptr; }

  /** The columns of every line after the header. */
  static constexpr const char* kColumns =
      "iteration,ended,write_s,bytes,stored,store_s,stored_blocks,store_errors";

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  Warn warn_;
};

}  // namespace ecluse
