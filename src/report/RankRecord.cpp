// Gathering the ranks' records on rank 0: totals, series and labels, each as bytes.
#include "report/RankRecord.hpp"

#include <sys/resource.h>

#include "core/Collective.hpp"

namespace ecluse {

double process_cpu_seconds_now() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) * 1e-6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

namespace {

std::string encode(const std::map<std::string, std::string>& labels) {
  std::string text;
  for (const auto& [key, value] : labels) {
    std::string line = value;
    for (char& c : line) {
      if (c == '\n') c = ' ';
    }
    text += key + "=" + line + "\n";
  }
  return text;
}

std::map<std::string, std::string> decode(const std::string& text) {
  std::map<std::string, std::string> labels;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end - start);
    const std::size_t eq = line.find('=');
    if (eq != std::string::npos) labels[line.substr(0, eq)] = line.substr(eq + 1);
    start = end == std::string::npos ? text.size() : end + 1;
  }
  return labels;
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

}  // namespace

std::vector<RankRecord> gather_records(const RankRecord& mine, MPI_Comm comm) {
  const auto totals = gather_strings(comm, as_bytes(std::vector<RankTotals>{mine.totals}), 0);
  const auto series = gather_strings(comm, as_bytes(mine.iterations), 0);
  const auto labels = gather_strings(comm, encode(mine.labels), 0);
  std::vector<RankRecord> records(totals.size());
  for (std::size_t r = 0; r < records.size(); ++r) {
    records[r].totals = from_bytes<RankTotals>(totals[r]).at(0);
    records[r].iterations = from_bytes<IterationRecord>(series[r]);
    records[r].labels = decode(labels[r]);
  }
  return records;
}

}  // namespace ecluse
