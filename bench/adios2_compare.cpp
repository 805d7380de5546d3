// The workload of approach_compare (per client and iteration a compute phase, then the output of
// one block of doubles) written without Ecluse: with an MPI-enabled ADIOS2 (BP5 with
// asynchronous write, with aggregation, synchronous) or straight with parallel HDF5 (a file per
// process, or one file per iteration through collective MPI-IO), or not at all (the run without
// output). Every rank is a client; one method per mpiexec (bench/adios2.sh runs them side by
// side with approach_compare's DC and DN).
#include <adios2.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ApproachSupport.hpp"
#include "BenchSupport.hpp"
#include "Hdf5Output.hpp"

namespace {

using namespace ecluse::bench;

constexpr double kMs = 1e3;

enum class Method { None, Bp5Async, Bp5Sync, Bp5Aggregation, Hdf5Fpp, Hdf5Collective };

const std::map<std::string, Method>& methods() {
  static const std::map<std::string, Method> names{
      {"none", Method::None},
      {"adios2-bp5-async", Method::Bp5Async},
      {"adios2-bp5-sync", Method::Bp5Sync},
      {"adios2-bp5-aggregation", Method::Bp5Aggregation},
      {"hdf5-fpp", Method::Hdf5Fpp},
      {"hdf5-collective", Method::Hdf5Collective}};
  return names;
}

struct Options {
  std::string method_name = "none";
  Method method = Method::None;
  std::string dir;
  std::uint64_t bytes = 16ull << 20;  // per client and iteration
  int iterations = 16;
  double compute_ms = 40;
  std::uint64_t work_units = 0;  // 0: calibrate
  bool produce = false;          // --produce: the compute phase ends writing the field
  int aggregators = 1;           // adios2-bp5-aggregation: NumAggregators
  std::string aggregation_type = "TwoLevelShm";
};

/** One output iteration of this rank's block; close() ends the output (everything written). */
class Writer {
 public:
  virtual ~Writer() = default;
  virtual void write(int iteration, const std::vector<double>& field) = 0;
  virtual void close() {}
  [[nodiscard]] virtual Json describe() const = 0;
};

class NoOutput final : public Writer {
 public:
  void write(int /*iteration*/, const std::vector<double>& /*field*/) override {}
  [[nodiscard]] Json describe() const override {
    return Json::object().set("output", "none: the compute phase alone");
  }
};

/** BP5, one global 1-D array "field" of all clients' blocks, one step per iteration; the
 * client-visible time is BeginStep + Put (deferred, the usual call) + EndStep. */
class Adios2Writer final : public Writer {
 public:
  Adios2Writer(const Options& o, const adios2::Params& parameters, int rank, int ranks)
      : adios_(MPI_COMM_WORLD), parameters_(parameters) {
    io_ = adios_.DeclareIO("proxy");
    io_.SetEngine("BP5");
    io_.SetParameters(parameters_);
    const std::size_t count = o.bytes / sizeof(double);
    variable_ = io_.DefineVariable<double>("field", {count * static_cast<std::size_t>(ranks)},
                                           {count * static_cast<std::size_t>(rank)}, {count},
                                           adios2::ConstantDims);
    engine_ = io_.Open(o.dir + "/proxy.bp", adios2::Mode::Write);
  }
  void write(int /*iteration*/, const std::vector<double>& field) override {
    engine_.BeginStep();
    engine_.Put(variable_, field.data());
    engine_.EndStep();
  }
  void close() override { engine_.Close(); }
  [[nodiscard]] Json describe() const override {
    Json params = Json::object();
    for (const auto& [key, value] : parameters_) params.set(key, value);
    return Json::object()
        .set("output", "ADIOS2 BP5, one global 1-D array, one step per iteration")
        .set("adios2_version", ADIOS2_VERSION_STR)
        .set("engine_parameters", std::move(params))
        .set("write", "BeginStep + Put (deferred) + EndStep, as the client sees it")
        .set("durability", "page cache: ADIOS2 does not fsync here");
  }

 private:
  adios2::ADIOS adios_;
  adios2::Params parameters_;
  adios2::IO io_;
  adios2::Variable<double> variable_;
  adios2::Engine engine_;
};

/** Parallel HDF5 without middleware (apps/baselines/Hdf5Output: the settings of Ecluse's
 * stores), one file per iteration as Ecluse's FilePerCore store writes. */
class Hdf5Writer final : public Writer {
 public:
  Hdf5Writer(const Options& o, baselines::FileLayout layout, int rank, int ranks)
      : output_(MPI_COMM_WORLD, layout, o.dir, "proxy"), layout_(layout) {
    const hsize_t count = o.bytes / sizeof(double);
    block_.name = "field";
    block_.type = H5T_NATIVE_DOUBLE;
    block_.memory = {count};
    block_.start = {0};
    block_.count = {count};
    block_.offset = {count * static_cast<hsize_t>(rank)};
    block_.global = {count * static_cast<hsize_t>(ranks)};
  }
  void write(int iteration, const std::vector<double>& field) override {
    block_.data = field.data();
    output_.write_iteration(iteration, {block_});
  }
  [[nodiscard]] Json describe() const override {
    const bool collective = layout_ == baselines::FileLayout::Collective;
    return Json::object()
        .set("output", collective ? "parallel HDF5, one shared file per iteration, collective "
                                    "MPI-IO writes and metadata"
                                  : "HDF5, one file per process and iteration, independent "
                                    "writes (no MPI-IO)")
        .set("write", "create the file(s), write the dataset, close, as the client sees it")
        .set("durability", "page cache: no fsync");
  }

 private:
  baselines::Hdf5Output output_;
  baselines::FileLayout layout_;
  baselines::Block block_;
};

std::unique_ptr<Writer> make_writer(const Options& o, int rank, int ranks) {
  switch (o.method) {
    case Method::None:
      return std::make_unique<NoOutput>();
    case Method::Bp5Async:
      return std::make_unique<Adios2Writer>(o, adios2::Params{{"AsyncWrite", "true"}}, rank, ranks);
    case Method::Bp5Sync:
      return std::make_unique<Adios2Writer>(o, adios2::Params{{"AsyncWrite", "false"}}, rank,
                                            ranks);
    case Method::Bp5Aggregation:
      return std::make_unique<Adios2Writer>(
          o,
          adios2::Params{{"AggregationType", o.aggregation_type},
                         {"NumAggregators", std::to_string(o.aggregators)}},
          rank, ranks);
    case Method::Hdf5Fpp:
      return std::make_unique<Hdf5Writer>(o, baselines::FileLayout::FilePerProcess, rank, ranks);
    case Method::Hdf5Collective:
      return std::make_unique<Hdf5Writer>(o, baselines::FileLayout::Collective, rank, ranks);
  }
  fail("unknown method");
}

/** Per iteration write and compute times, then loop, close and end-to-end seconds. */
std::vector<double> run_rank(const Options& o, Writer* writer, std::uint64_t work, int rank) {
  std::vector<double> field(o.bytes / sizeof(double));
  fill_pattern(field.data(), o.bytes, static_cast<unsigned>(rank));
  std::vector<double> write, compute;
  sleepy_barrier(MPI_COMM_WORLD);
  const auto start = Clock::now();
  for (int it = 0; it < o.iterations; ++it) {
    compute.push_back(timed([&] {
      Work::run(work);
      if (o.produce) produce_field(field.data(), field.size(), it);
    }));
    write.push_back(timed([&] { writer->write(it, field); }));
  }
  const double loop = seconds_between(start, Clock::now());
  const double close = timed([&] { writer->close(); });
  sleepy_barrier(MPI_COMM_WORLD);  // every rank has written everything
  std::vector<double> row(write);
  row.insert(row.end(), compute.begin(), compute.end());
  row.insert(row.end(), {loop, close, seconds_between(start, Clock::now())});
  return row;
}

Json report(const Options& o, const std::vector<double>& slowest, int ranks, const Json& writer) {
  const auto n = static_cast<std::size_t>(o.iterations);
  const std::vector<double> write(slowest.begin(), slowest.begin() + static_cast<long>(n));
  const std::vector<double> compute(slowest.begin() + static_cast<long>(n),
                                    slowest.begin() + static_cast<long>(2 * n));
  const std::vector<double> after_first(write.begin() + 1, write.end());
  const double end_to_end = slowest[2 * n + 2];
  Json series = Json::array();
  for (double s : write) series.push_back(s * kMs);
  return Json::object()
      .set("benchmark", "adios2_compare")
      .set("approach", o.method_name)
      .set("ranks", ranks)
      .set("clients", ranks)
      .set("oversubscribed", oversubscribed(ranks))
      .set("bytes_per_client", o.bytes)
      .set("iterations", o.iterations)
      .set("compute_ms_target", o.compute_ms)
      .set("compute", o.produce ? "the work units, then the field written once (--produce)"
                                : "the work units (the field is written once, before the loop)")
      .set("method", writer)
      .set("write_ms", spread_ms(write))
      .set("write_ms_percentiles", summary(write, kMs))
      .set("write_first_ms", write.front() * kMs)
      .set("write_ms_after_first", spread_ms(after_first))
      .set("compute_ms", spread_ms(compute))
      .set("loop_s", slowest[2 * n])
      .set("close_s", slowest[2 * n + 1])
      .set("end_to_end_s", end_to_end)
      .set("ms_per_iteration", end_to_end * kMs / o.iterations)
      .set("write_ms_series", std::move(series))
      .set("statistic", "write_ms: per iteration the slowest client, then over iterations")
      .set("end_to_end",
           "first compute phase until every rank has closed its output (everything written)");
}

Options parse(const Args& args) {
  Options o;
  o.method_name = args.get("approach", "none");
  const auto found = methods().find(o.method_name);
  if (found == methods().end()) {
    std::string names;
    for (const auto& [name, method] : methods()) names += (names.empty() ? "" : ", ") + name;
    fail("unknown --approach '" + o.method_name + "': use one of " + names);
  }
  o.method = found->second;
  o.dir = args.get("dir", "");
  if (o.dir.empty()) fail("--dir DIRECTORY is required");
  o.bytes = static_cast<std::uint64_t>(args.number("mib", 16) * 1048576.0) / 8 * 8;
  o.iterations = static_cast<int>(args.number("iterations", 16));
  o.compute_ms = args.number("compute-ms", 40);
  o.work_units = static_cast<std::uint64_t>(args.number("work-units", 0));
  o.produce = args.flag("produce");
  o.aggregators = static_cast<int>(args.number("aggregators", 1));
  o.aggregation_type = args.get("aggregation-type", "TwoLevelShm");
  if (o.iterations < 2) fail("--iterations must be at least 2");
  if (o.aggregators < 1) fail("--aggregators must be at least 1");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const Options o = parse(Args(argc, argv));
  if (rank == 0) std::filesystem::create_directories(o.dir);
  MPI_Barrier(MPI_COMM_WORLD);
  std::uint64_t work = o.work_units > 0 ? o.work_units : Work::calibrate(o.compute_ms / kMs);
  MPI_Bcast(&work, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  const Interference interference;
  Json out;
  {
    const std::unique_ptr<Writer> writer = make_writer(o, rank, ranks);
    const std::vector<double> mine = run_rank(o, writer.get(), work, rank);
    std::vector<double> slowest(mine.size());
    MPI_Reduce(mine.data(), slowest.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_MAX, 0,
               MPI_COMM_WORLD);
    if (rank == 0) out = report(o, slowest, ranks, writer->describe());
  }
  Json load = interference.report(MPI_COMM_WORLD);
  if (rank == 0) {
    out.set("work_units", work)
        .set("interference", std::move(load))
        .set("bytes_on_disk", bytes_on_disk(o.dir))
        .set("build", build_info());
    print_on_rank0(out.dump(), 0);
  }
  MPI_Finalize();
  return 0;
}
