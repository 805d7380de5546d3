// The XDMF decorator: block descriptions gathered to the first writer, which writes the
// iteration's document and the temporal collection, each to a temporary name then renamed.
#include "store/XdmfStore.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <utility>

#include "core/Collective.hpp"
#include "ecluse/Error.hpp"
#include "store/Packer.hpp"

namespace ecluse {
namespace {

constexpr int kHasBlocks = 1;
constexpr int kFailed = 2;

struct Described {
  XdmfArray array;
  bool time_varying = true;
  std::vector<std::uint64_t> global;  // declared global extent, empty when none
};

void pack(Packer& out, const Described& d) {
  const XdmfArray& a = d.array;
  out.put(a.variable);
  out.put(a.mesh);
  out.put(static_cast<std::int64_t>(a.centering));
  out.put(static_cast<std::int64_t>(d.time_varying));
  out.put(static_cast<std::int64_t>(a.type));
  out.put(a.extent);
  out.put(a.position);
  out.put(d.global);
  out.put(static_cast<std::int64_t>(a.source));
  out.put(static_cast<std::int64_t>(a.block));
  out.put(a.file);
  out.put(a.dataset);
}

Described unpack(Unpacker& in) {
  Described d;
  XdmfArray& a = d.array;
  a.variable = in.text();
  a.mesh = in.text();
  a.centering = static_cast<Centering>(in.integer());
  d.time_varying = in.integer() != 0;
  a.type = static_cast<DataType>(in.integer());
  a.extent = in.extent();
  a.position = in.extent<std::int64_t>();
  d.global = in.extent();
  a.source = static_cast<int>(in.integer());
  a.block = static_cast<int>(in.integer());
  a.file = in.text();
  a.dataset = in.text();
  return d;
}

// The collective file holds one dataset per variable at its global extent: the declared one,
// else the reach of its blocks (as Hdf5CollectiveStore computes it).
void merge_collective(std::map<std::string, Described>& merged, Described d) {
  std::vector<std::uint64_t> reach(d.array.extent.size(), 0);
  for (std::size_t i = 0; i < reach.size(); ++i) {
    const std::int64_t at = i < d.array.position.size() ? d.array.position[i] : 0;
    reach[i] = static_cast<std::uint64_t>(at) + d.array.extent[i];
  }
  d.array.extent = d.global.empty() ? reach : d.global;
  d.array.position.clear();
  d.array.source = -1;
  d.array.block = 0;
  d.array.dataset = d.array.variable;
  auto [it, inserted] = merged.try_emplace(d.array.variable, d);
  if (inserted || !d.global.empty()) return;
  std::vector<std::uint64_t>& known = it->second.array.extent;
  for (std::size_t i = 0; i < known.size() && i < reach.size(); ++i) {
    known[i] = std::max(known[i], reach[i]);
  }
}

[[noreturn]] void io_error(const std::string& what, const std::string& path, int error) {
  throw Error(ECLUSE_IO_ERROR, "XDMF: could not " + what + " '" + path +
                                   "': " + std::strerror(error) +
                                   ". Fix: check the store's FilesPath is writable");
}

// Written under "<path>.part" and renamed, so a reader never sees a half-written document.
void write_atomically(const std::string& path, const std::string& text, int permissions) {
  const std::string part = path + ".part";
  {
    std::ofstream out(part, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) io_error("write", part, errno);
  }
  if (permissions >= 0 && ::chmod(part.c_str(), static_cast<mode_t>(permissions)) != 0) {
    const int error = errno;
    std::filesystem::remove(part);
    io_error("set the mode of", part, error);
  }
  std::error_code error;
  std::filesystem::rename(part, path, error);
  if (error) {
    std::filesystem::remove(part);
    io_error("rename to", path, error.value());
  }
}

std::string relative_to(const std::string& path, const std::string& directory) {
  return std::filesystem::path(path).lexically_relative(directory).string();
}

}  // namespace

XdmfMode xdmf_mode_of(const std::string& text) {
  if (text == "FirstIteration") return XdmfMode::FirstIteration;
  return text == "EveryIteration" ? XdmfMode::EveryIteration : XdmfMode::NoIteration;
}

std::string xdmf_iteration_path(const std::string& directory, const std::string& simulation,
                                int iteration) {
  return directory + "/" + simulation + "_It" + std::to_string(iteration) + ".xmf";
}

std::string xdmf_temporal_path(const std::string& directory, const std::string& simulation) {
  return directory + "/" + simulation + ".xmf";
}

XdmfStore::XdmfStore(std::unique_ptr<StoreBackend> hdf5, XdmfMode mode, Hdf5FileMode file_mode,
                     Hdf5Options options, std::vector<XdmfMesh> meshes, StoreEnv env)
    : hdf5_(std::move(hdf5)),
      mode_(mode),
      file_mode_(file_mode),
      options_(std::move(options)),
      meshes_(std::move(meshes)),
      env_(std::move(env)) {
  if (env_.comm == MPI_COMM_NULL) env_.comm = MPI_COMM_SELF;
  MPI_Comm_rank(env_.comm, &rank_);
}

void XdmfStore::write_iteration(int iteration, const std::vector<BlockData>& blocks) {
  std::optional<Error> failure;
  try {
    hdf5_->write_iteration(iteration, blocks);
  } catch (const Error& e) {
    failure = e;
  }
  if (mode_ != XdmfMode::NoIteration && !done_) {
    const auto packed = gather_strings(env_.comm, failure ? "" : describe(iteration, blocks), 0);
    const int mine = (blocks.empty() ? 0 : kHasBlocks) | (failure ? kFailed : 0);
    const int flags = allreduce_int(env_.comm, mine, MPI_BOR);
    if ((flags & kHasBlocks) != 0 && (flags & kFailed) == 0) {
      run_collectively(env_.comm, [&] {
        if (rank_ == 0) write_documents(iteration, packed);
      });
      done_ = mode_ == XdmfMode::FirstIteration;
    } else if ((flags & kFailed) != 0 && rank_ == 0) {
      warn("no XDMF document for iteration " + std::to_string(iteration) +
           ": its HDF5 output failed on a writer");
    }
  }
  if (failure) throw *failure;
}

std::string XdmfStore::describe(int iteration, const std::vector<BlockData>& blocks) const {
  const std::string file =
      relative_to(output_file_path(options_, env_.simulation, iteration,
                                   file_mode_ == Hdf5FileMode::Collective ? 0 : env_.writer,
                                   file_mode_ == Hdf5FileMode::Collective ? 0 : env_.node),
                  options_.directory);
  Packer out;
  for (const BlockData& block : blocks) {
    Described d;
    d.array = {block.variable->name,
               block.variable->mesh,
               block.variable->centering,
               block.type,
               block.interior(),
               block.position,
               block.source,
               block.block,
               file,
               block_dataset_path(block, env_.domains)};
    d.time_varying = block.variable->time_varying;
    d.global = block.global;
    pack(out, d);
  }
  return out.bytes();
}

std::vector<XdmfArray> XdmfStore::arrays_of(const std::vector<std::string>& packed) {
  std::vector<Described> all;
  for (const std::string& bytes : packed) {
    Unpacker in(bytes);
    while (!in.done()) all.push_back(unpack(in));
  }
  if (file_mode_ == Hdf5FileMode::Collective) {
    std::map<std::string, Described> merged;
    std::vector<Described> pieces;  // written one dataset per block: one grid each
    const std::set<std::string> apart = hdf5_->variables_split();
    for (Described& d : all) {
      if (apart.count(d.array.variable) != 0) {
        pieces.push_back(std::move(d));
      } else {
        merge_collective(merged, std::move(d));
      }
    }
    all = std::move(pieces);
    for (auto& entry : merged) all.push_back(std::move(entry.second));
  }
  std::map<std::string, std::vector<XdmfArray>> fresh;  // this iteration's constants
  std::vector<XdmfArray> arrays;
  for (const Described& d : all) {
    if (!d.time_varying) fresh[d.array.variable].push_back(d.array);
    arrays.push_back(d.array);
  }
  for (auto& [name, list] : fresh) constants_[name] = std::move(list);
  for (const auto& [name, list] : constants_) {
    if (fresh.count(name) == 0) arrays.insert(arrays.end(), list.begin(), list.end());
  }
  return arrays;
}

void XdmfStore::write_documents(int iteration, const std::vector<std::string>& packed) {
  XdmfSkipped skipped;
  const std::string grids = xdmf_grids(arrays_of(packed), meshes_, skipped);
  for (const std::string& line : skipped) warn(line);
  const std::string path = xdmf_iteration_path(options_.directory, env_.simulation, iteration);
  write_atomically(path, xdmf_iteration_document(env_.simulation, iteration, grids),
                   options_.permissions);
  temporal_steps_ += xdmf_temporal_step({iteration, relative_to(path, options_.directory)});
  ++steps_;
  if (temporal_due()) write_temporal();
}

// The temporal collection is rewritten whole (atomically): at every step it grew with the run
// (a 22 MB file rewritten at each of 100,000 iterations). It is written at each of the first
// 100 steps, then when the steps grew by a tenth or 30 s passed, and at the end: the total
// written stays about 10 times the final file, and it lags the run by at most a tenth of its
// steps or 30 s (each iteration's own document is written at once).
bool XdmfStore::temporal_due() const {
  constexpr std::size_t kEveryStep = 100;
  constexpr auto kLongest = std::chrono::seconds(30);
  const std::size_t fresh = steps_ - temporal_written_;
  return steps_ <= kEveryStep || fresh * 10 >= steps_ ||
         std::chrono::steady_clock::now() - temporal_written_at_ >= kLongest;
}

void XdmfStore::write_temporal() {
  write_atomically(xdmf_temporal_path(options_.directory, env_.simulation),
                   xdmf_temporal_head(env_.simulation) + temporal_steps_ + xdmf_temporal_tail(),
                   options_.permissions);
  temporal_written_ = steps_;
  temporal_written_at_ = std::chrono::steady_clock::now();
}

XdmfStore::~XdmfStore() {
  if (steps_ == temporal_written_) return;
  try {
    write_temporal();
  } catch (const std::exception& e) {  // the iterations' own documents are all there
    if (env_.log != nullptr) {
      env_.log->warning("store '" + options_.store_name + "': XDMF: " + e.what());
    }
  }
}

void XdmfStore::warn(const std::string& line) {
  if (env_.log == nullptr || !warned_.insert(line).second) return;
  env_.log->warning("store '" + options_.store_name + "': XDMF: " + line +
                    " (said once per variable)");
}

}  // namespace ecluse
