// What the proxy and its HDF5 baseline share: the options of a run (block, iterations, output
// interval, fields), the bytes of one output and the summary fields that describe the grid.
#pragma once

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "Options.hpp"
#include "ProcessGrid.hpp"
#include "RunSummary.hpp"

namespace proxy {

struct RunOptions {
  std::vector<int> local;  ///< per-rank interior; empty when not given and no default
  int iterations = 0;
  int output_every = 0;
  std::vector<int> written;  ///< field indices

  /** Iteration `it` advances the fields to step it + 1; every output_every-th writes them. */
  [[nodiscard]] bool is_output(int it) const { return (it + 1) % output_every == 0; }
  [[nodiscard]] std::array<int, 3> local_size() const { return {local[0], local[1], local[2]}; }
};

/** The options run_options reads. */
inline const std::set<std::string> kRunOptionNames = {"local", "iterations", "output-every",
                                                      "variables"};

/** --local (default local_fallback; none if that is empty), --iterations (20),
 * --output-every (5), --variables (all six fields); throws apps::UsageError. */
RunOptions run_options(const apps::Options& options, const std::string& local_fallback);

/** Bytes of one output on this rank: the written fields' interiors. */
std::uint64_t output_bytes(const ProcessGrid& grid, const RunOptions& run);

/** Adds grid, process_grid, output_every and variables to the summary line. */
void describe_run(apps::RunSummary& summary, const RunOptions& run, const ProcessGrid& grid);

}  // namespace proxy
