// pm_counters are cumulative since the power controller started: the base is taken at the first
// reading and taken again when `startup` changes (the controller restarted, counters reset).
#include "energy/PmCountersSource.hpp"

#include "ecluse/Error.hpp"

namespace ecluse {
namespace {

struct CounterFile {
  const char* file;
  const char* zone;
};

// cpu, memory and accel are parts of the node's energy: only "node" goes into the total.
const CounterFile kCounterFiles[] = {{"energy", "node"},
                                     {"cpu_energy", "cpu"},
                                     {"memory_energy", "memory"},
                                     {"accel_energy", "accel"}};

std::uint64_t to_microjoules(std::uint64_t joules) {
  return joules * 1000000;
}

}  // namespace

PmCountersSource::PmCountersSource(SysfsFiles files) : files_(std::move(files)) {
  const std::string dir = std::string(kDirectory) + "/";
  if (!files_.exists(dir + "energy") || !files_.exists(dir + "freshness")) {
    throw Error(ECLUSE_IO_ERROR, "no " + files_.path(dir + "energy") + " (not a Cray/HPE node)");
  }
  for (const CounterFile& c : kCounterFiles) {
    if (files_.exists(dir + c.file)) counters_.push_back({c.file, c.zone});
  }
  reset_base(consistent_snapshot());
}

std::uint64_t PmCountersSource::read_value(const std::string& file) const {
  const std::string absolute = std::string(kDirectory) + "/" + file;
  try {
    return parse_leading_uint(files_.read(absolute), files_.path(absolute));
  } catch (const SysfsError& e) {
    throw Error(ECLUSE_IO_ERROR, std::string("pm_counters: ") + e.what());
  }
}

// The controller updates the files together between two increments of freshness: a snapshot is
// consistent when freshness did not move while the counters were read.
bool PmCountersSource::try_snapshot(Snapshot& snapshot) const {
  const std::uint64_t before = read_value("freshness");
  snapshot.values.clear();
  for (const Counter& c : counters_) snapshot.values.push_back(read_value(c.file));
  snapshot.startup =
      files_.exists(std::string(kDirectory) + "/startup") ? read_value("startup") : 0;
  return read_value("freshness") == before;
}

PmCountersSource::Snapshot PmCountersSource::consistent_snapshot() const {
  Snapshot snapshot;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    if (try_snapshot(snapshot)) return snapshot;
  }
  throw Error(ECLUSE_IO_ERROR,
              "pm_counters: " + files_.path(std::string(kDirectory) + "/freshness") +
                  " moved during each of " + std::to_string(kAttempts) +
                  " consecutive reads; no consistent reading");
}

void PmCountersSource::reset_base(const Snapshot& snapshot) {
  startup_ = snapshot.startup;
  for (std::size_t i = 0; i < counters_.size(); ++i) {
    Counter& c = counters_[i];
    c.accumulated += c.last - c.base;
    c.base = c.last = snapshot.values[i];
  }
}

bool PmCountersSource::went_backwards(const Snapshot& snapshot) const {
  for (std::size_t i = 0; i < counters_.size(); ++i) {
    if (snapshot.values[i] < counters_[i].last) return true;
  }
  return false;
}

void PmCountersSource::advance(const Snapshot& snapshot) {
  if (snapshot.startup != startup_ || went_backwards(snapshot)) {
    // Energy between our last reading and the restart is unknown: count none of it.
    note_ = "power controller restarted (startup " + std::to_string(startup_) + " -> " +
            std::to_string(snapshot.startup) + "); counting restarted from its new values";
    reset_base(snapshot);
    return;
  }
  for (std::size_t i = 0; i < counters_.size(); ++i) counters_[i].last = snapshot.values[i];
}

EnergyReading PmCountersSource::read() {
  advance(consistent_snapshot());
  return make_reading();
}

EnergyReading PmCountersSource::make_reading() const {
  EnergyReading reading{name(), quality(), "", monotonic_seconds(), {}, 0, note_};
  for (const Counter& c : counters_) {
    const std::uint64_t joules = c.accumulated + (c.last - c.base);
    reading.zones.push_back({c.zone, to_microjoules(joules), c.zone == "node"});
  }
  return reading;
}

}  // namespace ecluse
