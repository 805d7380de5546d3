// Zone indices are not stable (intel-rapl:1 is psys on some laptops and servers), so every zone
// is identified by its name and its parent's name; only packages and DRAM are summed.
#include "energy/RaplSource.hpp"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <regex>

#include "ecluse/Error.hpp"

namespace ecluse {
namespace {

const std::regex kZoneEntry(R"(intel-rapl(:[0-9]+)+)");

bool counted(const std::string& name) {
  return name.rfind("package", 0) == 0 || name == "dram";
}

std::string parent_entry(const std::string& entry) {
  const auto colon = entry.rfind(':');
  const bool nested = entry.find(':') != colon;
  return nested ? entry.substr(0, colon) : "";
}

std::vector<std::string> zone_entries(const std::string& directory) {
  std::vector<std::string> entries;
  std::error_code error;
  for (const auto& item : std::filesystem::directory_iterator(directory, error)) {
    const std::string entry = item.path().filename().string();
    if (std::regex_match(entry, kZoneEntry)) entries.push_back(entry);
  }
  std::sort(entries.begin(), entries.end());
  return entries;
}

std::string permission_message(const std::string& file) {
  return "rapl: cannot read " + file +
         ": permission denied (energy_uj is readable by root only since the CVE-2020-8694 fix); "
         "run as root, or make it readable (sudo chmod a+r " +
         file + "), or use the model";
}

}  // namespace

RaplSource::RaplSource(SysfsFiles files) : files_(std::move(files)) {
  discover();
  if (zones_.empty()) {
    throw Error(ECLUSE_IO_ERROR, "no RAPL zone under " + files_.path(kDirectory));
  }
  // A zone outside the total (psys, core, uncore) that cannot be read is left out: the total
  // does not need it (psys is often root-only where package and dram are readable).
  std::vector<Zone> readable;
  for (Zone& zone : zones_) {
    try {
      zone.last = read_energy(zone);
    } catch (const Error&) {
      if (zone.in_total) throw;
      continue;
    }
    readable.push_back(std::move(zone));
  }
  zones_ = std::move(readable);
}

std::string RaplSource::zone_name(const std::string& entry) const {
  const std::string file = std::string(kDirectory) + "/" + entry + "/name";
  try {
    return trim(files_.read(file));
  } catch (const SysfsError& e) {
    throw Error(ECLUSE_IO_ERROR, std::string("rapl: ") + e.what());
  }
}

RaplSource::Zone RaplSource::make_zone(const std::string& entry) const {
  Zone zone;
  zone.directory = std::string(kDirectory) + "/" + entry;
  const std::string name = zone_name(entry);
  const std::string parent = parent_entry(entry);
  zone.key = parent.empty() ? name : zone_name(parent) + "/" + name;
  // Sub-zones of a package other than DRAM (core, uncore) are inside the package's energy.
  zone.in_total = counted(name) && (parent.empty() || name == "dram");
  const std::string range = zone.directory + "/max_energy_range_uj";
  zone.max_range = parse_leading_uint(files_.read(range), files_.path(range));
  return zone;
}

void RaplSource::discover() {
  for (const std::string& entry : zone_entries(files_.path(kDirectory))) {
    if (files_.exists(std::string(kDirectory) + "/" + entry + "/energy_uj")) {
      zones_.push_back(make_zone(entry));
    }
  }
}

std::uint64_t RaplSource::read_energy(const Zone& zone) const {
  const std::string file = zone.directory + "/energy_uj";
  try {
    return parse_leading_uint(files_.read(file), files_.path(file));
  } catch (const SysfsError& e) {
    if (e.error() == EACCES || e.error() == EPERM) {
      throw Error(ECLUSE_IO_ERROR, permission_message(e.path()));
    }
    throw Error(ECLUSE_IO_ERROR, std::string("rapl: ") + e.what());
  }
}

std::uint64_t RaplSource::wrapped_delta(std::uint64_t previous, std::uint64_t current,
                                        std::uint64_t max_range) {
  return current >= previous ? current - previous : current + (max_range - previous);
}

EnergyReading RaplSource::read() {
  EnergyReading reading{name(), quality(), "", monotonic_seconds(), {}, 0, ""};
  for (Zone& zone : zones_) {
    const std::uint64_t current = read_energy(zone);
    zone.accumulated += wrapped_delta(zone.last, current, zone.max_range);
    zone.last = current;
    reading.zones.push_back({zone.key, zone.accumulated, zone.in_total});
  }
  return reading;
}

}  // namespace ecluse
