// Gathering the ranks' records: fixed parts with MPI_Gather, series and labels with Gatherv.
#include "report/RankRecord.hpp"

#include <sys/resource.h>

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

// Gathers variable-length byte strings; returns them on root, by rank.
std::vector<std::string> gather_bytes(const std::string& mine, MPI_Comm comm) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(size)), offsets(lengths.size());
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm);
  int total = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    offsets[i] = total;
    total += lengths[i];
  }
  std::string all(static_cast<std::size_t>(rank == 0 ? total : 0), '\0');
  MPI_Gatherv(mine.data(), length, MPI_BYTE, all.data(), lengths.data(), offsets.data(), MPI_BYTE,
              0, comm);
  std::vector<std::string> parts;
  if (rank != 0) return parts;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    parts.push_back(
        all.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(lengths[i])));
  }
  return parts;
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
  const auto totals = gather_bytes(as_bytes(std::vector<RankTotals>{mine.totals}), comm);
  const auto series = gather_bytes(as_bytes(mine.iterations), comm);
  const auto labels = gather_bytes(encode(mine.labels), comm);
  std::vector<RankRecord> records(totals.size());
  for (std::size_t r = 0; r < records.size(); ++r) {
    records[r].totals = from_bytes<RankTotals>(totals[r]).at(0);
    records[r].iterations = from_bytes<IterationRecord>(series[r]);
    records[r].labels = decode(labels[r]);
  }
  return records;
}

}  // namespace ecluse
