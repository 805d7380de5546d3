// Gathering the ranks' records on rank 0: fixed numbers, iteration summaries, counters and
// strings, as bytes.
#include "report/RankRecord.hpp"

#include <sys/resource.h>

#include <algorithm>

#include "core/Collective.hpp"

namespace ecluse {

double process_cpu_seconds_now() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) * 1e-6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

namespace {

// The numbers of a record that have a fixed size, sent as bytes.
struct FixedPart {
  RankTotals totals;
  bool has_energy = false;
  double joules = 0, seconds = 0, busy_cpu_s = -1;
};

// Strings travel as bytes too: each one's length, then its characters.
void put_string(std::string& out, const std::string& text) {
  const std::uint64_t size = text.size();
  out.append(reinterpret_cast<const char*>(&size), sizeof size);
  out += text;
}

std::string take_string(const std::string& in, std::size_t& at) {
  std::uint64_t size = 0;
  std::copy_n(in.data() + at, sizeof size, reinterpret_cast<char*>(&size));
  at += sizeof size;
  std::string text = in.substr(at, size);
  at += size;
  return text;
}

std::string texts_of(const RankRecord& r) {
  std::string out;
  const HostEnergyFigure e = r.energy.value_or(HostEnergyFigure{});
  for (const std::string* s : {&e.host, &e.source, &e.quality, &e.calibration, &e.note,
                               &r.frequency.policy, &r.frequency.controller}) {
    put_string(out, *s);
  }
  for (const std::string& action : r.frequency.actions) put_string(out, action);
  return out;
}

void read_texts(const std::string& in, RankRecord& r) {
  std::size_t at = 0;
  HostEnergyFigure e;
  for (std::string* s : {&e.host, &e.source, &e.quality, &e.calibration, &e.note,
                         &r.frequency.policy, &r.frequency.controller}) {
    *s = take_string(in, at);
  }
  while (at < in.size()) r.frequency.actions.push_back(take_string(in, at));
  if (r.energy) {
    e.joules = r.energy->joules;
    e.seconds = r.energy->seconds;
    e.busy_cpu_s = r.energy->busy_cpu_s;
    r.energy = e;
  }
}

template <class T>
std::string as_bytes(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

template <class T>
std::vector<T> from_bytes(const std::string& bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  std::copy(bytes.begin(), bytes.begin() + static_cast<long>(values.size() * sizeof(T)),
            reinterpret_cast<char*>(values.data()));
  return values;
}

template <class T>
void put(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

template <class T>
T take(const std::string& in, std::size_t& at) {
  T value{};
  std::copy_n(in.data() + at, sizeof value, reinterpret_cast<char*>(&value));
  at += sizeof value;
  return value;
}

// The counters, then each distribution's moments and its non-empty buckets.
std::string series_bytes(const IterationSeries& series) {
  std::string out;
  put(out, series.counters);
  for (const Distribution& d : series.series) {
    put(out, d.moments());
    put(out, static_cast<std::uint64_t>(d.buckets().size()));
    for (const auto& bucket : d.buckets()) put(out, bucket);
  }
  return out;
}

IterationSeries series_of(const std::string& in) {
  IterationSeries series;
  std::size_t at = 0;
  series.counters = take<SeriesCounters>(in, at);
  for (Distribution& d : series.series) {
    const auto moments = take<Distribution::Moments>(in, at);
    Distribution::Buckets buckets(take<std::uint64_t>(in, at));
    for (auto& bucket : buckets) bucket = take<Distribution::Buckets::value_type>(in, at);
    d = Distribution::from(moments, std::move(buckets));
  }
  return series;
}

}  // namespace

std::vector<RankRecord> gather_records(const RankRecord& mine, MPI_Comm comm) {
  FixedPart fixed{mine.totals, mine.energy.has_value(), 0, 0, -1};
  if (mine.energy) {
    fixed = {mine.totals, true, mine.energy->joules, mine.energy->seconds, mine.energy->busy_cpu_s};
  }
  const auto fixeds = gather_strings(comm, as_bytes(std::vector<FixedPart>{fixed}), 0);
  const auto series = gather_strings(comm, series_bytes(mine.series), 0);
  const auto statistics = gather_strings(comm, as_bytes(mine.statistics), 0);
  const auto texts = gather_strings(comm, texts_of(mine), 0);
  std::vector<RankRecord> records(fixeds.size());
  for (std::size_t r = 0; r < records.size(); ++r) {
    const FixedPart f = from_bytes<FixedPart>(fixeds[r]).at(0);
    records[r].totals = f.totals;
    if (f.has_energy) {
      HostEnergyFigure e;
      e.joules = f.joules;
      e.seconds = f.seconds;
      e.busy_cpu_s = f.busy_cpu_s;
      records[r].energy = e;
    }
    records[r].series = series_of(series[r]);
    records[r].statistics = from_bytes<StatisticValue>(statistics[r]);
    read_texts(texts[r], records[r]);
  }
  return records;
}

}  // namespace ecluse
