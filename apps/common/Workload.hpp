// The life cycle every workload shares: MPI, options, Ecluse initialize/start, the client's
// work, stop/finalize; servers (DC, DN) spend the whole run inside ecluse_start.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <utility>

#include "Options.hpp"

namespace apps {

/** A workload's settings: its configuration file and the options of the run it makes. */
template <class Run>
struct Settings {
  std::string config;
  Run run;
};

/** --config (default default_config) and the run's options (`names`, read by read_run). */
template <class Run>
Settings<Run> parse_settings(int argc, char** argv, const std::string& default_config,
                             std::set<std::string> names, Run (*read_run)(const Options&)) {
  names.insert("config");
  const Options options(argc, argv, std::move(names), {});
  return {options.text("config", default_config), read_run(options)};
}

/** parse reads the options (may throw UsageError) and returns the configuration file;
 * client runs on the simulation ranks. Returns main's exit code (2 for a usage error). */
int run_workload(int argc, char** argv, const char* usage,
                 const std::function<std::string()>& parse, const std::function<void()>& client);

/** The same with a program's own settings: parse returns them (`config` names the
 * configuration file) and client gets them, so that main is one line. */
template <class ProgramSettings>
int run_workload(int argc, char** argv, const char* usage, ProgramSettings (*parse)(int, char**),
                 void (*client)(const ProgramSettings&)) {
  ProgramSettings settings;
  return run_workload(
      argc, argv, usage,
      [&] {
        settings = parse(argc, argv);
        return settings.config;
      },
      [&] { client(settings); });
}

}  // namespace apps
