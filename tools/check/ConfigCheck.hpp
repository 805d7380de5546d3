// ecluse-check: what a configuration file asks for, checked without MPI and without running
// the simulation (docs/check.md): its errors and warnings, the bytes each client hands over per
// iteration, the stores, and, for a given rank count, the placement of the servers and whether
// one iteration fits the buffer.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "config/Config.hpp"
#include "report/Json.hpp"

namespace ecluse::check {

struct CheckOptions {
  int ranks = 0;           // 0: no placement
  int ranks_per_node = 0;  // 0: ECLUSE_RANKS_PER_NODE, else <virtual-nodes>, else one node
  std::vector<std::pair<std::string, std::string>> parameters;  // --param NAME=VALUE
};

/** The file's text with --param values put in place of the declared ones; throws
 * Error(ECLUSE_CONFIG_ERROR) naming a parameter that is not declared. */
Config with_parameters(Config config, const CheckOptions& options);

/** What the configuration does: `text`, lines for a terminal (no trailing newline), and the
 * same figures as `json` (an object; docs/check.md lists its members). `problems` has one line
 * per problem the run would refuse: a placement that cannot be made on the given ranks
 * (initialize's message). `warnings` are added to the file's. */
struct Description {
  std::string text;
  Json json = Json::object();
  std::vector<std::string> problems;
  // Warnings beyond the file's own: an iteration with all its blocks larger than what a client
  // may hold (initialize warns of it too), a file the run opens at initialize that cannot be
  // read from this directory (a <pyscript>'s file, an event library given by a path).
  std::vector<std::string> warnings;
};

/** Throws Error(ECLUSE_INVALID_DIMENSIONS) when a layout cannot be evaluated. */
Description describe(const Config& config, const CheckOptions& options);

}  // namespace ecluse::check
