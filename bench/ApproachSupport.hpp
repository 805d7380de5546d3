// Helpers of the benchmarks that compare the three approaches (TP, DC, DN): one configuration
// text for all three, the dn.* counters, and the spread statistics (p95, stddev) they report.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "BenchSupport.hpp"

namespace ecluse::bench {

enum class Approach { TP, DC, DN };

/** "tp", "dc" or "dn" (fails otherwise). */
Approach parse_approach(const std::string& name);
const char* approach_name(Approach approach);

/** One variable of `bytes` (doubles) stored by an HDF5 FilePerCore store under `files_path`.
 * DC: `<dedicated cores="1"/>` on one virtual node of all ranks; DN: `<dedicated nodes="1"/>`
 * on virtual nodes of `ranks_per_node`; `buffer_bytes` is the DC buffer or the DN node's
 * receive memory. */
struct ApproachSpec {
  Approach approach = Approach::TP;
  std::string simulation = "bench";
  int ranks = 1;
  int ranks_per_node = 1;  // DN only
  std::uint64_t buffer_bytes = 64ull << 20;
  std::string files_path;
  std::uint64_t bytes = 1ull << 20;
  std::vector<std::string> events;  // bound with ecluse_bind before start
  bool sync = false;                // the store's option Sync="yes" (fsync before publishing)
  std::string copy;                 // <buffer copy> (DC, DN); empty: the default
  bool prefault = true;             // <buffer prefault> (DC, DN)
  std::string log_file;
};
std::string approach_config(const ApproachSpec& spec);

/** Counters of a DN client (after ecluse_stop) and of a DN server (after ecluse_start). */
const std::vector<std::string>& dn_client_counters();
const std::vector<std::string>& dn_server_counters();
/** This rank's values of `names` (ecluse_get_statistic); fails the job if one is missing. */
std::vector<double> read_counters(const std::vector<std::string>& names);
/** names[i] -> values[i] as a JSON object. */
Json counters_json(const std::vector<std::string>& names, const std::vector<double>& values);

double standard_deviation(const std::vector<double>& samples);
/** mean, p50, p95, max, stddev, max/p50 and count of samples in seconds, in milliseconds. */
Json spread_ms(const std::vector<double>& seconds);

/** The output under `directory` (recursively): regular files, their bytes and the blocks the
 * file system allocated for them. Ecluse's run log ("log", "log.<rank>.log") and run report
 * ("*-report.json") are not output and are left out. */
Json bytes_on_disk(const std::string& directory);

/** True when the job has more ranks than the machine has cores (timings then prove behaviour,
 * not speed). */
bool oversubscribed(int ranks);

}  // namespace ecluse::bench
