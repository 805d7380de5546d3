// Helpers of the benchmarks that compare the three approaches (see ApproachSupport.hpp).
// The configuration mirrors make_config (BenchSupport.cpp), with dedicated nodes added.
#include "ApproachSupport.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "ecluse/ecluse.h"

namespace ecluse::bench {

Approach parse_approach(const std::string& name) {
  if (name == "tp") return Approach::TP;
  if (name == "dc") return Approach::DC;
  if (name == "dn") return Approach::DN;
  fail("unknown approach '" + name + "': use tp, dc or dn");
}

const char* approach_name(Approach approach) {
  switch (approach) {
    case Approach::TP:
      return "tp";
    case Approach::DC:
      return "dc";
    case Approach::DN:
      return "dn";
  }
  return "?";
}

namespace {

std::string architecture_xml(const ApproachSpec& spec) {
  const int cores = spec.approach == Approach::DC ? 1 : 0;
  const int nodes = spec.approach == Approach::DN ? 1 : 0;
  const int per_node = spec.approach == Approach::DC ? spec.ranks : spec.ranks_per_node;
  std::string xml = "<architecture><domains count=\"1\"/><dedicated cores=\"" +
                    std::to_string(cores) + "\" nodes=\"" + std::to_string(nodes) + "\"/>";
  if (spec.approach != Approach::TP) {
    xml += "<buffer size=\"" + std::to_string(spec.buffer_bytes) + "\"" +
           (spec.copy.empty() ? "" : " copy=\"" + spec.copy + "\"") +
           (spec.prefault ? "" : " prefault=\"false\"") + "/>";
    xml += "<virtual-nodes ranks-per-node=\"" + std::to_string(per_node) + "\"/>";
  }
  return xml + "</architecture>";
}

std::string data_xml(const ApproachSpec& spec) {
  return "<data><layout name=\"l_field\" type=\"double\" dimensions=\"" +
         std::to_string(spec.bytes / sizeof(double)) +
         "\"/><variable name=\"field\" layout=\"l_field\" store=\"out\"/></data>";
}

std::string storage_xml(const ApproachSpec& spec) {
  return "<storage><store name=\"out\" type=\"HDF5\"><option key=\"FileMode\">FilePerCore"
         "</option><option key=\"FilesPath\">" +
         spec.files_path + "</option>" + (spec.sync ? "<option key=\"Sync\">yes</option>" : "") +
         "</store></storage>";
}

std::string actions_xml(const ApproachSpec& spec) {
  if (spec.events.empty()) return "";
  std::string xml = "<actions>";
  for (const auto& e : spec.events) xml += "<event name=\"" + e + "\" action=\"bench_" + e + "\"/>";
  return xml + "</actions>";
}

}  // namespace

std::string approach_config(const ApproachSpec& spec) {
  std::string xml = "<simulation name=\"" + spec.simulation + "\" xmlns=\"urn:ecluse:config:1\">";
  xml += architecture_xml(spec) + data_xml(spec) + storage_xml(spec) + actions_xml(spec);
  if (!spec.log_file.empty()) {
    xml += "<log LogLevel=\"warning\" FileName=\"" + spec.log_file + "\"/>";
  }
  // The run report goes beside the output, and its summary off stdout (the benchmark's JSON).
  xml += "<report file=\"" + spec.files_path + "/{simulation}-report.json\" summary=\"false\"/>";
  return xml + "</simulation>";
}

const std::vector<std::string>& dn_client_counters() {
  static const std::vector<std::string> names{
      "dn.window_bytes",        "dn.credit_bytes", "dn.lowest_credit_bytes", "dn.credit_waits",
      "dn.credit_wait_seconds", "dn.sent_blocks",  "dn.sent_bytes",          "dn.skipped_blocks"};
  return names;
}

const std::vector<std::string>& dn_server_counters() {
  static const std::vector<std::string> names{"dn.receive_memory_bytes", "dn.peak_held_bytes",
                                              "dn.received_blocks", "dn.received_bytes",
                                              "dn.credit_messages"};
  return names;
}

std::vector<double> read_counters(const std::vector<std::string>& names) {
  std::vector<double> values;
  for (const auto& name : names) {
    double value = 0;
    check(ecluse_get_statistic(name.c_str(), &value), name.c_str());
    values.push_back(value);
  }
  return values;
}

Json counters_json(const std::vector<std::string>& names, const std::vector<double>& values) {
  Json j = Json::object();
  for (std::size_t i = 0; i < names.size() && i < values.size(); ++i) j.set(names[i], values[i]);
  return j;
}

double standard_deviation(const std::vector<double>& samples) {
  if (samples.size() < 2) return 0;
  const double m = mean(samples);
  double sum = 0;
  for (double x : samples) sum += (x - m) * (x - m);
  return std::sqrt(sum / static_cast<double>(samples.size() - 1));
}

Json spread_ms(const std::vector<double>& seconds) {
  const double ms = 1e3;
  const double p50 = percentile(seconds, 50);
  return Json::object()
      .set("count", static_cast<int>(seconds.size()))
      .set("mean", mean(seconds) * ms)
      .set("p50", p50 * ms)
      .set("p95", percentile(seconds, 95) * ms)
      .set("max", maximum(seconds) * ms)
      .set("stddev", standard_deviation(seconds) * ms)
      .set("max_over_p50", maximum(seconds) / p50);
}

Json bytes_on_disk(const std::string& directory) {
  namespace fs = std::filesystem;
  double bytes = 0, allocated = 0;
  int files = 0;
  std::error_code error;
  for (fs::recursive_directory_iterator it(directory, error), end; !error && it != end;
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    const bool log = name == "log" || (name.starts_with("log.") && name.ends_with(".log"));
    const bool not_output = log || name.ends_with("-report.json");
    struct stat st {};
    if (not_output || !it->is_regular_file() || ::stat(it->path().c_str(), &st) != 0) continue;
    bytes += static_cast<double>(st.st_size);
    allocated += static_cast<double>(st.st_blocks) * 512.0;
    ++files;
  }
  if (error) fail("cannot list " + directory + ": " + error.message());
  return Json::object().set("bytes", bytes).set("allocated_bytes", allocated).set("files", files);
}

bool oversubscribed(int ranks) {
  return ranks > static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
}

}  // namespace ecluse::bench
