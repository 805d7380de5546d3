// ecluse-check: checks a configuration file without MPI and without the simulation
// (docs/check.md). Exit status: 0 valid, 1 refused (the messages initialize would give; with
// --strict, also a file initialize accepts with warnings), 2 bad usage.
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "ConfigCheck.hpp"
#include "config/ConfigError.hpp"
#include "config/ConfigLoader.hpp"
#include "ecluse/Error.hpp"
#include "report/Json.hpp"

namespace {

constexpr const char* kUsage =
    "usage: ecluse-check [--ranks N] [--ranks-per-node M] [--param NAME=VALUE]... [--json] "
    "[--strict] FILE.xml\n"
    "Checks an Ecluse or Damaris 1.x configuration as ecluse_initialize would, without MPI:\n"
    "its errors and warnings (file:line:column), the bytes each client hands over per\n"
    "iteration, the stores; with --ranks, where the servers go on N ranks (M per node; default\n"
    "ECLUSE_RANKS_PER_NODE, then the file's <virtual-nodes>, else one node) and whether an\n"
    "iteration fits the buffer.\n"
    "--param sets a parameter as the simulation would before writing (damaris_parameter_set).\n"
    "--json prints one JSON object (the same figures, for scripts) instead of the text.\n"
    "--strict refuses a file that has warnings too (a job script's gate: a Damaris file's\n"
    "misspelt attribute, which Damaris and Ecluse ignore, then stops the job).\n"
    "Exit status: 0 valid, 1 refused (or warnings under --strict), 2 bad usage.\n";

struct Usage {
  std::string message;
};

struct Arguments {
  std::string file;
  bool json = false;
  bool strict = false;  // warnings refuse the file too
  ecluse::check::CheckOptions options;
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

Arguments parse_arguments(int argc, char** argv) {
  Arguments parsed;
  ecluse::check::CheckOptions& options = parsed.options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--ranks") {
      options.ranks = positive(arg, value_of(argc, argv, i));
    } else if (arg == "--ranks-per-node") {
      options.ranks_per_node = positive(arg, value_of(argc, argv, i));
    } else if (arg == "--param") {
      options.parameters.push_back(assignment(value_of(argc, argv, i)));
    } else if (arg == "--json") {
      parsed.json = true;
    } else if (arg == "--strict") {
      parsed.strict = true;
    } else if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (arg.starts_with("-") || !parsed.file.empty()) {
      throw Usage{"unexpected argument '" + arg + "'"};
    } else {
      parsed.file = arg;
    }
  }
  if (parsed.file.empty()) throw Usage{"no configuration file given"};
  if (options.ranks_per_node > 0 && options.ranks == 0) {
    throw Usage{"--ranks-per-node needs --ranks"};
  }
  return parsed;
}

/** The --json output: the file, valid or refused, the warnings and errors, then what the
 * configuration does (absent when the file is refused before it could be described). */
ecluse::Json verdict(const std::string& file, const std::vector<std::string>& warnings,
                     const std::vector<std::string>& errors, ecluse::Json description,
                     bool strict) {
  ecluse::Json out = ecluse::Json::object();
  out.set("file", file).set("valid", errors.empty());
  if (strict) out.set("strict_passed", errors.empty() && warnings.empty());
  ecluse::Json w = ecluse::Json::array(), e = ecluse::Json::array();
  for (const std::string& text : warnings) w.push_back(text);
  for (const std::string& text : errors) e.push_back(text);
  out.set("warnings", std::move(w)).set("errors", std::move(e));
  out.set("configuration", std::move(description));
  return out;
}

int check(const Arguments& arguments) {
  const std::string& file = arguments.file;
  const ecluse::Config config = ecluse::check::with_parameters(
      ecluse::parse_config(file, ecluse::read_config_file(file)), arguments.options);
  ecluse::check::Description d = ecluse::check::describe(config, arguments.options);
  std::vector<std::string> warnings = config.warnings;
  warnings.insert(warnings.end(), d.warnings.begin(), d.warnings.end());
  const bool refused_for_warnings = arguments.strict && !warnings.empty();
  const int status = d.problems.empty() && !refused_for_warnings ? 0 : 1;
  if (arguments.json) {
    std::cout << verdict(file, warnings, d.problems, std::move(d.json), arguments.strict).dump()
              << '\n';
    return status;
  }
  for (const std::string& w : warnings) std::cout << "warning: " << w << '\n';
  std::cout << d.text << '\n';
  for (const std::string& p : d.problems) std::cout << "error: " << p << '\n';
  const char* verdict_word = !d.problems.empty()    ? "refused"
                             : refused_for_warnings ? "refused under --strict"
                                                    : "valid";
  std::cout << file << ": " << verdict_word << ", " << warnings.size() << " warning(s)\n";
  return status;
}

// A file refused before it could be described: one error line (one JSON entry) per problem.
int refused(const Arguments& arguments, const std::vector<std::string>& errors) {
  if (arguments.json) {
    std::cout << verdict(arguments.file, {}, errors, ecluse::Json(), arguments.strict).dump()
              << '\n';
    return 1;
  }
  for (const std::string& e : errors) std::cout << "error: " << e << '\n';
  std::cout << arguments.file << ": refused\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  Arguments arguments;
  try {
    arguments = parse_arguments(argc, argv);
  } catch (const Usage& u) {
    std::cerr << "ecluse-check: " << u.message << "\n" << kUsage;
    return 2;
  }
  try {
    return check(arguments);
  } catch (const ecluse::ConfigError& e) {
    return refused(arguments, e.messages());
  } catch (const ecluse::Error& e) {
    return refused(arguments, {e.what()});
  }
}
