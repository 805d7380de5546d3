// The life cycle every baseline shares: MPI, options, the file layout chosen with --approach,
// and the JSON summary line the Ecluse workloads print, with the approach named in it.
#pragma once

#include <functional>
#include <string>

#include "Hdf5Output.hpp"
#include "Options.hpp"
#include "RunSummary.hpp"

namespace baselines {

/** Names accepted by --approach, for the usage texts. */
inline constexpr const char* kApproachUsage = "[--approach hdf5-collective|hdf5-fpp]";

/** Reads --approach (default hdf5-collective); throws apps::UsageError for another value. */
FileLayout layout_option(const apps::Options& options);

/** The apps' summary (config: the approach) with an `approach` field, on MPI_COMM_WORLD. */
apps::RunSummary make_summary(const std::string& app, FileLayout layout);

/** parse may throw apps::UsageError (exit code 2, the usage on rank 0's stderr); run then
 * runs on every rank. Returns main's exit code. */
int run_baseline(int argc, char** argv, const char* usage, const std::function<void()>& parse,
                 const std::function<void()>& run);

}  // namespace baselines
