// ecluse-check: checks a configuration file without MPI and without the simulation
// (docs/check.md). Exit status: 0 valid, 1 refused (the messages initialize would give),
// 2 bad usage.
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "ConfigCheck.hpp"
#include "config/ConfigLoader.hpp"
#include "ecluse/Error.hpp"

namespace {

constexpr const char* kUsage =
    "usage: ecluse-check [--ranks N] [--ranks-per-node M] [--param NAME=VALUE]... FILE.xml\n"
    "Checks an Ecluse or Damaris 1.x configuration as ecluse_initialize would, without MPI:\n"
    "its errors and warnings (file:line:column), the bytes each client hands over per\n"
    "iteration, the stores; with --ranks, where the servers go on N ranks (M per node; default\n"
    "ECLUSE_RANKS_PER_NODE, then the file's <virtual-nodes>, else one node) and whether an\n"
    "iteration fits the buffer.\n"
    "--param sets a parameter as the simulation would before writing (damaris_parameter_set).\n"
    "Exit status: 0 valid, 1 refused, 2 bad usage.\n";

struct Usage {
  std::string message;
};

int positive(const std::string& option, const char* text) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || value <= 0 || value > 1 << 24) {
    throw Usage{option + " '" + text + "' is not a positive integer (at most 16777216)"};
  }
  return static_cast<int>(value);
}

const char* value_of(int argc, char** argv, int& i) {
  if (i + 1 >= argc) throw Usage{std::string(argv[i]) + " needs a value"};
  return argv[++i];
}

std::pair<std::string, std::string> assignment(const std::string& text) {
  const auto equals = text.find('=');
  if (equals == std::string::npos || equals == 0) {
    throw Usage{"--param '" + text + "' is not NAME=VALUE"};
  }
  return {text.substr(0, equals), text.substr(equals + 1)};
}

std::string parse_arguments(int argc, char** argv, ecluse::check::CheckOptions& options) {
  std::string file;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--ranks") {
      options.ranks = positive(arg, value_of(argc, argv, i));
    } else if (arg == "--ranks-per-node") {
      options.ranks_per_node = positive(arg, value_of(argc, argv, i));
    } else if (arg == "--param") {
      options.parameters.push_back(assignment(value_of(argc, argv, i)));
    } else if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (arg.starts_with("-") || !file.empty()) {
      throw Usage{"unexpected argument '" + arg + "'"};
    } else {
      file = arg;
    }
  }
  if (file.empty()) throw Usage{"no configuration file given"};
  if (options.ranks_per_node > 0 && options.ranks == 0) {
    throw Usage{"--ranks-per-node needs --ranks"};
  }
  return file;
}

int check(const std::string& file, const ecluse::check::CheckOptions& options) {
  const ecluse::Config config = ecluse::check::with_parameters(
      ecluse::parse_config(file, ecluse::read_config_file(file)), options);
  for (const std::string& w : config.warnings) std::cout << "warning: " << w << '\n';
  std::vector<std::string> problems;
  const std::string text = ecluse::check::describe(config, options, problems);
  std::cout << text << '\n';
  for (const std::string& p : problems) std::cout << "error: " << p << '\n';
  std::cout << file << ": " << (problems.empty() ? "valid" : "refused") << ", "
            << config.warnings.size() << " warning(s)\n";
  return problems.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  ecluse::check::CheckOptions options;
  std::string file;
  try {
    file = parse_arguments(argc, argv, options);
  } catch (const Usage& u) {
    std::cerr << "ecluse-check: " << u.message << "\n" << kUsage;
    return 2;
  }
  try {
    return check(file, options);
  } catch (const ecluse::Error& e) {
    std::cout << "error: " << e.what() << '\n' << file << ": refused\n";
    return 1;
  }
}
