// HDF5 store in FilePerNode mode: the node's first writer writes the file, the others stream it
// their blocks.
//
// Why gather to one writer rather than parallel HDF5 on the node's communicator: with MPI-IO,
// every dataset and attribute creation (six per block) would be a collective call of all the
// node's writers, up to a whole node of ranks in time partitioning, for blocks that are each
// written by one process anyway; MPI within a node moves data far faster than a file system
// takes it, and the serial driver keeps the reservation and trimming of FilePerCore. Memory: the
// leader receives one member block at a time (its interior only, in messages of at most 16 MiB)
// and frees it once written, so it holds its own blocks plus the largest member block, never
// the node's data; a member sends a ghost-free block straight from its memory and packs the
// interior of a ghosted one through a buffer of at most one message.
#include "store/Hdf5FilePerNodeStore.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <string_view>
#include <utility>

#include "core/Collective.hpp"
#include "ecluse/Error.hpp"
#include "store/Compression.hpp"
#include "store/Packer.hpp"

namespace ecluse {

/** A block of the node as every writer of the node knows it, before its data moves. */
struct NodeBlock {
  std::string variable;
  std::string units;
  std::int64_t type = 0;  // DataType
  std::int64_t iteration = 0;
  std::int64_t source = 0;
  std::int64_t block = 0;
  std::vector<std::uint64_t> interior;
  std::vector<std::int64_t> position;  // as given: empty when not set
  [[nodiscard]] DataType data_type() const { return static_cast<DataType>(type); }
  [[nodiscard]] std::uint64_t bytes() const {
    return element_count(interior) * data_type_size(data_type());
  }
};

/** What one writer tells the others of its node: its blocks, or the error that stops it. */
struct NodeWriterBlocks {
  std::int64_t status = ECLUSE_OK;
  std::string message;
  std::vector<NodeBlock> blocks;
};

namespace {

// MPI counts are int: a block's interior moves in messages of at most this size.
constexpr std::uint64_t kMessageBytes = std::uint64_t(16) << 20;
constexpr int kBlockDataTag = 7401;

NodeBlock describe(const BlockData& block) {
  return {block.variable->name, block.variable->unit, static_cast<std::int64_t>(block.type),
          block.iteration,      block.source,         block.block,
          block.interior(),     block.position};
}

NodeWriterBlocks describe_all(const std::vector<BlockData>& blocks, const std::string& store) {
  NodeWriterBlocks mine;
  try {
    for (const BlockData& block : blocks) {
      check_block(block, store);
      mine.blocks.push_back(describe(block));
    }
  } catch (const Error& e) {
    mine = {e.status(), e.what(), {}};
  }
  return mine;
}

std::string pack(const NodeWriterBlocks& writer) {
  Packer out;
  out.put(writer.status);
  out.put(writer.message);
  for (const NodeBlock& b : writer.blocks) {
    out.put(b.variable);
    out.put(b.units);
    for (std::int64_t value : {b.type, b.iteration, b.source, b.block}) out.put(value);
    out.put(b.interior);
    out.put(b.position);
  }
  return out.bytes();
}

NodeWriterBlocks unpack(std::string_view bytes) {
  Unpacker in(bytes);
  NodeWriterBlocks writer;
  writer.status = in.integer();
  writer.message = in.text();
  while (!in.done()) {
    NodeBlock b;
    b.variable = in.text();
    b.units = in.text();
    for (std::int64_t* value : {&b.type, &b.iteration, &b.source, &b.block}) *value = in.integer();
    b.interior = in.extent();
    b.position = in.extent<std::int64_t>();
    writer.blocks.push_back(std::move(b));
  }
  return writer;
}

// Every writer of the node gets the same list, so all go on or all throw the same error (that
// of the first failing writer).
std::vector<NodeWriterBlocks> share_blocks(MPI_Comm node_comm, const std::vector<BlockData>& blocks,
                                           const std::string& store) {
  std::vector<NodeWriterBlocks> node;
  for (const std::string& bytes : gather_strings(node_comm, pack(describe_all(blocks, store)))) {
    node.push_back(unpack(bytes));
  }
  for (const NodeWriterBlocks& writer : node) {
    if (writer.status != ECLUSE_OK) {
      throw Error(static_cast<ecluse_status>(writer.status), writer.message);
    }
  }
  return node;
}

std::size_t block_count(const std::vector<NodeWriterBlocks>& node) {
  std::size_t count = 0;
  for (const NodeWriterBlocks& writer : node) count += writer.blocks.size();
  return count;
}

std::uint64_t payload_bytes(const std::vector<NodeWriterBlocks>& node,
                            const CompressionSettings& compression) {
  std::uint64_t bytes = 0;
  for (const NodeWriterBlocks& writer : node) {
    for (const NodeBlock& block : writer.blocks) {
      bytes += stored_bytes_bound(block.bytes(), block.data_type(), compression);
    }
  }
  return bytes;
}

int message_size(std::uint64_t total, std::uint64_t at) {
  return static_cast<int>(std::min(kMessageBytes, total - at));
}

/** The interior of a block as runs of contiguous bytes: one run per index of the outer
 * dimensions, each spanning the innermost dimension with ghosts and all dimensions inside it. */
struct InteriorRuns {
  std::vector<std::uint64_t> outer;   // interior extent of the dimensions iterated over
  std::vector<std::uint64_t> stride;  // bytes from one index of an outer dimension to the next
  std::uint64_t first = 0;            // byte offset of the first run
  std::uint64_t run = 0;              // bytes of one run
};

std::vector<std::uint64_t> byte_strides(const BlockData& block) {
  std::vector<std::uint64_t> stride(block.dims.size(), data_type_size(block.type));
  for (std::size_t d = stride.size(); d-- > 1;) stride[d - 1] = stride[d] * block.dims[d];
  return stride;
}

InteriorRuns interior_runs(const BlockData& block) {
  const std::vector<std::uint64_t> interior = block.interior();
  std::size_t ghosted = interior.size();  // dimensions [ghosted, n) have no ghosts
  while (ghosted > 0 && interior[ghosted - 1] == block.dims[ghosted - 1]) --ghosted;
  const std::size_t outer = ghosted > 0 ? ghosted - 1 : 0;  // dimensions [0, outer) iterated
  const std::vector<std::uint64_t> stride = byte_strides(block);
  InteriorRuns runs;
  runs.outer.assign(interior.begin(), interior.begin() + std::ptrdiff_t(outer));
  runs.stride.assign(stride.begin(), stride.begin() + std::ptrdiff_t(outer));
  runs.run = data_type_size(block.type);
  for (std::size_t d = outer; d < interior.size(); ++d) runs.run *= interior[d];
  for (std::size_t d = 0; d < ghosted; ++d) {
    runs.first += (block.ghost_lo.empty() ? 0 : block.ghost_lo[d]) * stride[d];
  }
  return runs;
}

bool next_index(std::vector<std::uint64_t>& index, const std::vector<std::uint64_t>& extent) {
  for (std::size_t d = index.size(); d-- > 0;) {
    if (++index[d] < extent[d]) return true;
    index[d] = 0;
  }
  return false;
}

std::uint64_t run_offset(const InteriorRuns& runs, const std::vector<std::uint64_t>& index) {
  std::uint64_t offset = runs.first;
  for (std::size_t d = 0; d < index.size(); ++d) offset += index[d] * runs.stride[d];
  return offset;
}

void send_bytes(const unsigned char* data, std::uint64_t bytes, MPI_Comm comm) {
  for (std::uint64_t at = 0; at < bytes; at += kMessageBytes) {
    send_bounded(data + at, message_size(bytes, at), MPI_BYTE, 0, kBlockDataTag, comm);
  }
}

/** Sends runs of bytes in messages of exactly the sizes the leader receives them in. */
class PackingSender {
 public:
  PackingSender(MPI_Comm comm, std::uint64_t total)
      : comm_(comm),
        capacity_(std::min(total, kMessageBytes)),
        buffer_(std::make_unique_for_overwrite<unsigned char[]>(capacity_)) {}
  void add(const unsigned char* data, std::uint64_t bytes) {
    while (bytes > 0) {
      const std::uint64_t n = std::min(bytes, capacity_ - used_);
      std::memcpy(buffer_.get() + used_, data, n);
      used_ += n;
      data += n;
      bytes -= n;
      if (used_ == capacity_) flush();
    }
  }
  void flush() {
    if (used_ > 0) {
      send_bounded(buffer_.get(), static_cast<int>(used_), MPI_BYTE, 0, kBlockDataTag, comm_);
    }
    used_ = 0;
  }

 private:
  MPI_Comm comm_;
  std::uint64_t capacity_;
  std::uint64_t used_ = 0;
  std::unique_ptr<unsigned char[]> buffer_;
};

void send_block(const BlockData& block, MPI_Comm comm) {
  const std::uint64_t total = interior_bytes(block);
  if (total == 0) return;
  const InteriorRuns runs = interior_runs(block);
  const auto* base = static_cast<const unsigned char*>(block.data);
  if (runs.outer.empty()) return send_bytes(base + runs.first, total, comm);
  PackingSender sender(comm, total);
  std::vector<std::uint64_t> index(runs.outer.size(), 0);
  do {
    sender.add(base + run_offset(runs, index), runs.run);
  } while (next_index(index, runs.outer));
  sender.flush();
}

void receive_bytes(unsigned char* data, std::uint64_t bytes, int from, MPI_Comm comm) {
  for (std::uint64_t at = 0; at < bytes; at += kMessageBytes) {
    receive_bounded(data + at, message_size(bytes, at), MPI_BYTE, from, kBlockDataTag, comm);
  }
}

// After a failure the leader still receives every block, so that no member stays blocked.
void drain_bytes(std::uint64_t bytes, int from, MPI_Comm comm) {
  std::vector<unsigned char> scratch(std::min(bytes, kMessageBytes));
  for (std::uint64_t at = 0; at < bytes; at += kMessageBytes) {
    receive_bounded(scratch.data(), message_size(bytes, at), MPI_BYTE, from, kBlockDataTag, comm);
  }
}

void write_received_block(hid_t file, const NodeBlock& received, const void* data, int domains,
                          const std::string& path, const CompressionSettings& compression) {
  Variable variable;
  variable.name = received.variable;
  variable.unit = received.units;
  BlockData block;
  block.variable = &variable;
  block.type = received.data_type();
  block.iteration = static_cast<int>(received.iteration);
  block.source = static_cast<int>(received.source);
  block.block = static_cast<int>(received.block);
  block.dims = received.interior;
  block.position = received.position;
  block.data = data;
  write_block_dataset(file, block, domains, path, compression);
}

/** The leader's writes of one file: the first failure is kept and the rest skipped, but every
 * member block is still received. */
class LeaderWrites {
 public:
  LeaderWrites(hid_t file, const std::string& path, int domains, MPI_Comm comm,
               const CompressionSettings& compression)
      : file_(file), path_(path), domains_(domains), comm_(comm), compression_(compression) {}
  void own(const BlockData& block) {
    attempt([&] { write_block_dataset(file_, block, domains_, path_, compression_); });
  }
  void member(int from, const NodeBlock& block) {
    std::unique_ptr<unsigned char[]> data;
    attempt([&] { data = std::make_unique_for_overwrite<unsigned char[]>(block.bytes()); });
    if (!data) return drain_bytes(block.bytes(), from, comm_);
    receive_bytes(data.get(), block.bytes(), from, comm_);
    attempt([&] { write_received_block(file_, block, data.get(), domains_, path_, compression_); });
  }
  void rethrow_failure() const {
    if (failure_) std::rethrow_exception(failure_);
  }

 private:
  template <class Step>
  void attempt(Step&& step) {
    if (failure_) return;
    try {
      step();
    } catch (...) {
      failure_ = std::current_exception();
    }
  }
  hid_t file_;
  const std::string& path_;
  int domains_;
  MPI_Comm comm_;
  const CompressionSettings& compression_;
  std::exception_ptr failure_;
};

}  // namespace

Hdf5FilePerNodeStore::Hdf5FilePerNodeStore(Hdf5Options options, StoreEnv env)
    : options_(std::move(options)), env_(std::move(env)) {
  if (env_.node_comm == MPI_COMM_NULL) env_.node_comm = MPI_COMM_SELF;
  check_compression_built(options_.compression, options_.store_name);
}

bool Hdf5FilePerNodeStore::is_leader() const {
  int rank = 0;
  MPI_Comm_rank(env_.node_comm, &rank);
  return rank == 0;
}

void Hdf5FilePerNodeStore::write_iteration(int iteration, const std::vector<BlockData>& blocks) {
  quiet_hdf5_errors();
  const std::vector<NodeWriterBlocks> node =
      share_blocks(env_.node_comm, blocks, options_.store_name);
  if (block_count(node) == 0) return;
  if (!is_leader()) return send_to_leader(blocks);
  write_as_leader(output_file_path(options_, env_.simulation, iteration, env_.writer, env_.node),
                  iteration, node, blocks);
}

// Both steps run while the leader works, and throw what it throws.
void Hdf5FilePerNodeStore::send_to_leader(const std::vector<BlockData>& blocks) const {
  run_collectively(env_.node_comm, [] {});  // the leader creates the file, reserves its space
  for (const BlockData& block : blocks) send_block(block, env_.node_comm);
  run_collectively(env_.node_comm, [] {});  // the leader writes, closes and publishes the file
}

void Hdf5FilePerNodeStore::write_as_leader(const std::string& path, int iteration,
                                           const std::vector<NodeWriterBlocks>& node,
                                           const std::vector<BlockData>& blocks) const {
  Hdf5Handle file;
  bool created = false;  // a part that was there before is another run's: never removed
  try {
    run_collectively(env_.node_comm, [&] { file = create_file(path, iteration, node, created); });
    run_collectively(env_.node_comm, [&] {
      write_blocks(file.get(), path, node, blocks);
      close_serial_part(file, path);
      publish_part(path, options_);
    });
  } catch (...) {
    file.close();
    if (created) discard_part(path);
    throw;
  }
}

Hdf5Handle Hdf5FilePerNodeStore::create_file(const std::string& path, int iteration,
                                             const std::vector<NodeWriterBlocks>& node,
                                             bool& created) const {
  ensure_output_directory(std::filesystem::path(path).parent_path().string(), options_.store_name,
                          options_.sync);
  Hdf5Handle file = create_serial_part(path);
  created = true;
  write_file_attributes(file.get(), env_.simulation, iteration, -1, path);
  write_int_attribute(file.get(), "node", env_.node, path);
  // Flushed first, so that the small file left if the reservation fails closes cleanly.
  hdf5_check(H5Fflush(file.get(), H5F_SCOPE_LOCAL), "flush the file", path);
  reserve_space(path,
                reservation_size(payload_bytes(node, options_.compression), block_count(node)),
                options_.store_name);
  return file;
}

// The leader's own blocks first, then each member's in the order the member sends them.
void Hdf5FilePerNodeStore::write_blocks(hid_t file, const std::string& path,
                                        const std::vector<NodeWriterBlocks>& node,
                                        const std::vector<BlockData>& blocks) const {
  LeaderWrites writes(file, path, env_.domains, env_.node_comm, options_.compression);
  for (const BlockData& block : blocks) writes.own(block);
  for (std::size_t member = 1; member < node.size(); ++member) {
    for (const NodeBlock& block : node[member].blocks) writes.member(int(member), block);
  }
  writes.rethrow_failure();
}

}  // namespace ecluse
