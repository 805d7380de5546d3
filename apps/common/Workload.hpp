// The life cycle every workload shares: MPI, options, Ecluse initialize/start, the client's
// work, stop/finalize; servers (DC, DN) spend the whole run inside ecluse_start.
#pragma once

#include <functional>
#include <string>

namespace apps {

/** parse reads the options (may throw UsageError) and returns the configuration file;
 * client runs on the simulation ranks. Returns main's exit code (2 for a usage error). */
int run_workload(int argc, char** argv, const char* usage,
                 const std::function<std::string()>& parse, const std::function<void()>& client);

}  // namespace apps
