// The life cycle every baseline shares: MPI, options, the file layout chosen with --approach,
// and the JSON summary line the Ecluse workloads print, with the approach named in it.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <utility>

#include "Hdf5Output.hpp"
#include "Options.hpp"
#include "RunSummary.hpp"

namespace baselines {

/** Names accepted by --approach, for the usage texts. */
inline constexpr const char* kApproachUsage = "[--approach hdf5-collective|hdf5-fpp]";

/** Reads --approach (default hdf5-collective); throws apps::UsageError for another value. */
FileLayout layout_option(const apps::Options& options);

/** A baseline's settings: the file layout and the options of the run it makes (`Run`, shared
 * with the Ecluse program it compares to). */
template <class Run>
struct Settings {
  FileLayout layout = FileLayout::Collective;
  Run run;
};

/** --approach and the run's options (`names`, read by read_run); throws apps::UsageError. */
template <class Run>
Settings<Run> parse_settings(int argc, char** argv, std::set<std::string> names,
                             Run (*read_run)(const apps::Options&)) {
  names.insert("approach");
  const apps::Options options(argc, argv, std::move(names), {});
  return {layout_option(options), read_run(options)};
}

/** The apps' summary (config: the approach) with an `approach` field, on MPI_COMM_WORLD. */
apps::RunSummary make_summary(const std::string& app, FileLayout layout);

/** parse may throw apps::UsageError (exit code 2, the usage on rank 0's stderr); run then
 * runs on every rank. Returns main's exit code. */
int run_baseline(int argc, char** argv, const char* usage, const std::function<void()>& parse,
                 const std::function<void()>& run);

/** The same with a program's own settings: parse returns them and run gets them, so that
 * main is one line. */
template <class ProgramSettings>
int run_baseline(int argc, char** argv, const char* usage, ProgramSettings (*parse)(int, char**),
                 void (*run)(const ProgramSettings&)) {
  ProgramSettings settings;
  return run_baseline(
      argc, argv, usage, [&] { settings = parse(argc, argv); }, [&] { run(settings); });
}

}  // namespace baselines
