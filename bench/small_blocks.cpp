// Many small blocks per iteration (particles per cell, AMR patches, one block per variable of a
// multiphysics code): what a block costs a client under DC and under DN, side by side in one job
// of 2 ranks (1 client + its dedicated core, then 1 client + its dedicated node), against a
// memcpy of the same bytes. The "null" store: the transport alone. Per case and approach, the
// client's time per iteration (every write and the end_iteration) over the blocks it wrote; the
// approaches alternate from case to case. DN gathers blocks of at most 8 KiB into batches of up
// to 32 KiB, one message each (dn.batched_blocks, dn.batches); it sends a larger block in two.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ApproachSupport.hpp"
#include "BenchSupport.hpp"
#include "ecluse/ecluse.h"

namespace {

using namespace ecluse::bench;

constexpr double kUs = 1e6;

struct Options {
  std::string dir = ".";  // the run reports
  int iterations = 40;
  double compute_ms = 20;
  std::vector<int> blocks{100, 500, 2000};
  std::vector<std::uint64_t> block_bytes{512, 4096, 65536};
  std::string copy = "auto";  // <buffer copy>
};

struct Case {
  int blocks;
  std::uint64_t bytes;  // per block
};

std::string config(bool dn, const Case& c, const Options& o) {
  const std::string values = std::to_string(c.bytes / sizeof(double));
  // Room for 3 iterations, with the DC allocator's header per block.
  const std::uint64_t buffer =
      3 * static_cast<std::uint64_t>(c.blocks) * footprint(c.bytes) + (1u << 20);
  return R"(<simulation name="small" xmlns="urn:ecluse:config:1"><architecture><domains count=")" +
         std::to_string(c.blocks) + R"("/>)" +
         (dn ? R"(<dedicated nodes="1"/><virtual-nodes ranks-per-node="1"/>)"
             : R"(<dedicated cores="1"/><virtual-nodes ranks-per-node="2"/>)") +
         R"(<buffer size=")" + std::to_string(buffer) + R"(" copy=")" + o.copy +
         R"("/></architecture><data><layout name="l" type="double" dimensions=")" + values +
         R"("/><variable name="v" layout="l"/></data><storage><store name="s" type="null"/>)"
         R"(</storage><log LogLevel="warning"/><report file=")" +
         o.dir + R"(/{simulation}-report.json" summary="false"/></simulation>)";
}

struct Measured {
  std::vector<double> iteration;  // seconds: every write of the iteration and its end
  double batched_blocks = 0;
  double batches = 0;
};

Measured run_case(bool dn, const Case& c, const Options& o, std::uint64_t work,
                  std::vector<double>& data) {
  Measured m;
  check(ecluse_initialize_string(config(dn, c, o).c_str(), MPI_COMM_WORLD), "ecluse_initialize");
  int is_client = 0;
  check(ecluse_start(&is_client), "ecluse_start");
  if (is_client) {
    for (int it = 0; it < o.iterations; ++it) {
      Work::run(work);
      m.iteration.push_back(timed([&] {
        for (int b = 0; b < c.blocks; ++b) {
          check(ecluse_write_block("v", b, data.data() + b * (c.bytes / sizeof(double))),
                "ecluse_write_block");
        }
        check(ecluse_end_iteration(), "ecluse_end_iteration");
      }));
    }
    check(ecluse_stop(), "ecluse_stop");
    // -1: a library from before batches (LD_LIBRARY_PATH=<older build>: a before/after run).
    if (dn && ecluse_get_statistic("dn.batched_blocks", &m.batched_blocks) != ECLUSE_OK) {
      m.batched_blocks = -1;
    }
    if (dn && ecluse_get_statistic("dn.batches", &m.batches) != ECLUSE_OK) m.batches = -1;
  }
  check(ecluse_finalize(), "ecluse_finalize");
  return m;
}

/** The memcpy of an iteration's blocks, block by block, into a buffer of the same size. */
double memcpy_per_block(const Case& c, const std::vector<double>& data) {
  std::vector<double> to(data.size());
  std::vector<double> samples;
  for (int rep = 0; rep < 20; ++rep) {
    samples.push_back(timed([&] {
      const std::size_t n = c.bytes / sizeof(double);
      for (int b = 0; b < c.blocks; ++b) {
        std::memcpy(to.data() + b * n, data.data() + b * n, c.bytes);
      }
    }));
  }
  return median(samples) / c.blocks;
}

/** Per block: the p50 over iterations after the first (set-up) of the client's time. */
double per_block(const Measured& m, int blocks) {
  const std::vector<double> after_first(m.iteration.begin() + 1, m.iteration.end());
  return median(after_first) / blocks;
}

/** "100,500" as numbers; `fallback` when the option is absent. */
template <class T>
std::vector<T> list_of(const Args& args, const std::string& key, std::vector<T> fallback) {
  const std::string text = args.get(key, "");
  if (text.empty()) return fallback;
  std::vector<T> values;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    char* end = nullptr;
    const double value = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || value < 1) {
      fail("--" + key + " takes positive numbers separated by commas, not '" + text + "'");
    }
    values.push_back(static_cast<T>(value));
    at = comma + 1;
  }
  return values;
}

Options parse(const Args& args) {
  Options o;
  o.dir = args.get("dir", o.dir);
  o.copy = args.get("copy", o.copy);
  o.iterations = static_cast<int>(args.number("iterations", o.iterations));
  o.compute_ms = args.number("compute-ms", o.compute_ms);
  if (args.flag("quick")) {
    o.blocks = {100, 1000};
    o.block_bytes = {512, 65536};
    o.iterations = std::min(o.iterations, 20);
  }
  o.blocks = list_of(args, "blocks", o.blocks);
  o.block_bytes = list_of(args, "block-bytes", o.block_bytes);
  for (const std::uint64_t bytes : o.block_bytes) {
    if (bytes % sizeof(double) != 0) fail("--block-bytes: a multiple of 8 (blocks of doubles)");
  }
  if (o.iterations < 3) fail("--iterations must be at least 3");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const Options o = parse(Args(argc, argv));
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int ranks = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (ranks != 2) fail("small_blocks runs with 2 ranks (mpiexec -n 2)");
  const std::uint64_t work = Work::calibrate(o.compute_ms / 1e3);
  Json cases = Json::array();
  int order = 0;
  for (const std::uint64_t bytes : o.block_bytes) {
    for (const int blocks : o.blocks) {
      const Case c{blocks, bytes};
      std::vector<double> data(static_cast<std::size_t>(blocks) * (bytes / sizeof(double)));
      fill_pattern(data.data(), data.size() * sizeof(double), 7);
      Measured dc;
      Measured dn;
      const bool dn_first = (order++ % 2) != 0;
      for (int pass = 0; pass < 2; ++pass) {
        const bool is_dn = (pass == 0) == dn_first;
        (is_dn ? dn : dc) = run_case(is_dn, c, o, work, data);
      }
      if (rank != 0) continue;  // rank 0 is the client in both
      const double dc_us = per_block(dc, blocks) * kUs;
      const double dn_us = per_block(dn, blocks) * kUs;
      const double memcpy_us = memcpy_per_block(c, data) * kUs;
      cases.push_back(Json::object()
                          .set("blocks", blocks)
                          .set("block_bytes", static_cast<double>(bytes))
                          .set("order", dn_first ? "dn, dc" : "dc, dn")
                          .set("dc_us_per_block", dc_us)
                          .set("dn_us_per_block", dn_us)
                          .set("memcpy_us_per_block", memcpy_us)
                          .set("dn_over_dc", dn_us / dc_us)
                          .set("dc_over_memcpy", dc_us / memcpy_us)
                          .set("dn_over_memcpy", dn_us / memcpy_us)
                          .set("dn_batched_blocks", dn.batched_blocks)
                          .set("dn_batches", dn.batches)
                          .set("dn_blocks", static_cast<double>(blocks) * o.iterations));
    }
  }
  if (rank == 0) {
    Json out = Json::object();
    out.set("benchmark", "small_blocks: DC vs DN per block, null store")
        .set("iterations", o.iterations)
        .set("compute_ms", o.compute_ms)
        .set("statistic",
             "p50 over iterations after the first of the client's time for every write of an "
             "iteration and its end_iteration, divided by the blocks")
        .set("oversubscribed", oversubscribed(2))
        .set("cases", cases)
        .set("build", build_info());
    std::printf("%s\n", out.dump().c_str());
  }
  MPI_Finalize();
  return 0;
}
