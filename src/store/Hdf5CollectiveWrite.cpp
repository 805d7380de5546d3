// The Collective store's HDF5 side: the shared file created through MPI-IO, one dataset per
// planned variable (or per piece), each block written collectively at its place or index.
#include <algorithm>
#include <cstring>
#include <map>

#include "core/Collective.hpp"
#include "core/Watchdog.hpp"
#include "store/Compression.hpp"
#include "store/Hdf5CollectivePlan.hpp"
#include "store/Hdf5CollectiveStore.hpp"

namespace ecluse {

/** How one dataset of the shared file is compressed, the same on every writer. */
struct DatasetEncoding {
  const CompressionSettings* settings = nullptr;
  DataType type = DataType::Float64;
  std::vector<std::uint64_t> chunk;
  Hdf5Compression applied = Hdf5Compression::None;
  ScaledRange range;  // scaled16: over all writers' blocks
};

namespace {

Hdf5Handle collective_transfer(const CollectiveVariable& v, const std::string& path) {
  Hdf5Handle dxpl = hdf5_own(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "create a property list", path);
  hdf5_check(
      H5Pset_dxpl_mpio(dxpl.get(), v.overlapping ? H5FD_MPIO_INDEPENDENT : H5FD_MPIO_COLLECTIVE),
      "request collective I/O", path);
  return dxpl;
}

// Parallel HDF5 allocates datasets at creation; writing fill values there would write every
// byte twice. Parts no block covers stay unwritten (holes of a new file, read back as zeros).
// Compressed datasets are chunked, each chunk filtered by the writer that owns it.
Hdf5Handle dataset_creation_list(const DatasetEncoding& encoding, const std::string& path) {
  Hdf5Handle dcpl =
      hdf5_own(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "create a property list", path);
  hdf5_check(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER), "disable fill values", path);
  add_compression(dcpl.get(), *encoding.settings, encoding.applied, encoding.type, encoding.chunk,
                  path);
  return dcpl;
}

DatasetEncoding encoding_of(const CollectiveVariable& v, const CompressionSettings& settings) {
  DatasetEncoding encoding;
  encoding.settings = &settings;
  encoding.type = v.data_type();
  encoding.chunk =
      chunk_extent(v.extent(), v.chunk, data_type_size(encoding.type), settings.chunk_bytes);
  encoding.applied = applied_method(settings, encoding.type, encoding.chunk);
  return encoding;
}

Hdf5Handle create_dataset(hid_t file, const CollectiveVariable& v, const DatasetEncoding& encoding,
                          const std::string& path) {
  Hdf5Handle space = make_dataspace(v.extent(), path);
  Hdf5Handle lcpl = intermediate_group_lcpl(path);
  Hdf5Handle dcpl = dataset_creation_list(encoding, path);
  Hdf5Handle type = stored_type(encoding.applied, encoding.type, path);
  return hdf5_own(H5Dcreate2(file, v.name.c_str(), type.get(), space.get(), lcpl.get(), dcpl.get(),
                             H5P_DEFAULT),
                  H5Dclose, "create dataset '" + v.name + "'", path);
}

// Scaled16 shares one offset and factor per dataset, and zfp skips a dataset holding NaN or
// Inf: both decided on the values of every writer's blocks.
FiniteRange collective_range(const std::vector<const BlockData*>& mine, MPI_Comm comm) {
  FiniteRange range;
  for (const BlockData* block : mine) range.merge(interior_range(*block));
  double local[3] = {range.lo, -range.hi, range.nonfinite > 0 ? -1.0 : 0.0};
  double global[3] = {0, 0, 0};
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallreduce(local, global, 3, MPI_DOUBLE, MPI_MIN, comm, &request);
  complete(request, comm, "the value range of a compressed variable");
  return {global[0], -global[1], global[2] < 0 ? 1u : 0u};
}

void select_in_file(hid_t file_space, const BlockData* block, const std::string& path) {
  if (block == nullptr || element_count(block->interior()) == 0) {
    hdf5_check(H5Sselect_none(file_space), "select nothing", path);
    return;
  }
  if (block->dims.empty()) return;  // scalar: the whole dataset, selected by default
  const std::vector<std::int64_t> position = block_position(*block);
  const std::vector<hsize_t> start(position.begin(), position.end());
  const std::vector<std::uint64_t> interior = block->interior();
  const std::vector<hsize_t> count(interior.begin(), interior.end());
  hdf5_check(
      H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
      "select the place of a block", path);
}

Hdf5Handle memory_space_of(const BlockData* block, const std::string& path) {
  if (block != nullptr) return interior_memory_space(*block, path);
  Hdf5Handle space = make_dataspace({1}, path);
  hdf5_check(H5Sselect_none(space.get()), "select nothing", path);
  return space;
}

// A writer with fewer blocks than others still takes part, with an empty selection: the
// write is collective and every writer must make the same number of calls. Converted blocks
// are written from their encoded interior, in the file type.
void write_collective_block(hid_t dataset, const CollectiveVariable& v,
                            const DatasetEncoding& encoding, const BlockData* block,
                            const std::string& path) {
  Hdf5Handle file_space = hdf5_own(H5Dget_space(dataset), H5Sclose, "get a dataspace", path);
  select_in_file(file_space.get(), block, path);
  const bool converted = converts(encoding.applied) && block != nullptr;
  Hdf5Handle memory_space =
      converted ? make_dataspace(block->interior(), path) : memory_space_of(block, path);
  if (converted && element_count(block->interior()) == 0) {
    hdf5_check(H5Sselect_none(memory_space.get()), "select nothing", path);
  }
  Hdf5Handle dxpl = collective_transfer(v, path);
  const std::vector<std::uint16_t> codes =
      converted ? encode_interior(*block, encoding.applied, encoding.range)
                : std::vector<std::uint16_t>{};
  Hdf5Handle memory_type =
      converts(encoding.applied)
          ? stored_type(encoding.applied, encoding.type, path)
          : hdf5_own(H5Tcopy(native_type(v.data_type())), H5Tclose, "copy a type", path);
  static const char nothing[8] = {};
  const void* data = converted && !codes.empty()                                ? codes.data()
                     : !converted && block != nullptr && block->data != nullptr ? block->data
                                                                                : nothing;
  hdf5_check(
      H5Dwrite(dataset, memory_type.get(), memory_space.get(), file_space.get(), dxpl.get(), data),
      "write dataset '" + v.name + "'", path);
}

// Few runs of consecutive indices (a partition of a grid) as a union of hyperslabs, which HDF5
// writes as fast as a block; else points (about 90 ns each). HDF5 builds a union in time
// quadratic in its runs (17,679 runs: 8 s), hence the bound.
constexpr std::size_t kMaxRuns = 1024;

void select_sorted(hid_t file_space, const Hdf5CollectiveStore::Selection& selection,
                   const std::string& path) {
  const std::size_t n = selection.sorted.size();
  const std::size_t runs = selection.runs.size();
  if (runs > kMaxRuns || runs * 4 > n) {
    const std::vector<hsize_t> points(selection.sorted.begin(), selection.sorted.end());
    hdf5_check(H5Sselect_elements(file_space, H5S_SELECT_SET, n, points.data()),
               "select the elements of a block by its index", path);
    return;
  }
  H5S_seloper_t op = H5S_SELECT_SET;
  for (const auto& [start, count] : selection.runs) {
    const hsize_t first[1] = {start}, length[1] = {count};
    hdf5_check(H5Sselect_hyperslab(file_space, op, first, nullptr, length, nullptr),
               "select the runs of a block's index", path);
    op = H5S_SELECT_OR;
  }
}

// select-file=: the block's interior gathered in its index's increasing order, written to those
// points (collective, uncompressed: a variable placed by index is never converted).
void write_selected_block(hid_t dataset, const CollectiveVariable& v, const BlockData& block,
                          const Hdf5CollectiveStore::Selection& selection,
                          const std::string& path) {
  const std::size_t n = selection.sorted.size();
  const std::size_t size = data_type_size(block.type);
  const std::uint64_t first = block.ghost_lo.empty() ? 0 : block.ghost_lo[0];
  const auto* interior = static_cast<const unsigned char*>(block.data) + first * size;
  std::vector<unsigned char> gathered(std::max<std::size_t>(n, 1) * size);
  for (std::size_t j = 0; j < n; ++j) {
    std::memcpy(gathered.data() + j * size, interior + selection.order[j] * size, size);
  }
  Hdf5Handle file_space = hdf5_own(H5Dget_space(dataset), H5Sclose, "get a dataspace", path);
  Hdf5Handle memory_space = make_dataspace({std::max<std::uint64_t>(n, 1)}, path);
  if (n == 0) {
    hdf5_check(H5Sselect_none(file_space.get()), "select nothing", path);
    hdf5_check(H5Sselect_none(memory_space.get()), "select nothing", path);
  } else {
    select_sorted(file_space.get(), selection, path);
  }
  Hdf5Handle dxpl = collective_transfer(v, path);
  Hdf5Handle memory_type =
      hdf5_own(H5Tcopy(native_type(v.data_type())), H5Tclose, "copy a type", path);
  hdf5_check(H5Dwrite(dataset, memory_type.get(), memory_space.get(), file_space.get(), dxpl.get(),
                      gathered.data()),
             "write dataset '" + v.name + "'", path);
}

/** One block of a variable written as pieces (one dataset per block). */
struct Piece {
  int source = 0;
  int block = 0;
  std::vector<std::uint64_t> extent;  // its interior
};

// CollectiveVariable::pieces, per block: source, block id, rank, then that many sizes.
std::vector<Piece> pieces_of(const CollectiveVariable& v) {
  std::vector<Piece> pieces;
  const std::vector<std::uint64_t>& p = v.pieces;
  for (std::size_t at = 0; at + 3 <= p.size(); at += 3 + p[at + 2]) {
    const auto first = p.begin() + static_cast<std::ptrdiff_t>(at + 3);
    pieces.push_back({static_cast<int>(p[at]),
                      static_cast<int>(p[at + 1]),
                      {first, first + static_cast<std::ptrdiff_t>(p[at + 2])}});
  }
  return pieces;
}

std::size_t dataset_count(const std::vector<CollectiveVariable>& plan) {
  std::size_t datasets = 0;
  for (const CollectiveVariable& v : plan) datasets += v.per_block ? pieces_of(v).size() : 1;
  return datasets;
}

// Pieces are written uncompressed (write_pieces), the other datasets with the store's method.
std::uint64_t payload_bytes(const std::vector<CollectiveVariable>& plan,
                            const CompressionSettings& compression) {
  std::uint64_t bytes = 0;
  for (const CollectiveVariable& v : plan) {
    const std::uint64_t value = data_type_size(v.data_type());
    if (!v.per_block) {
      bytes += stored_bytes_bound(element_count(v.extent()) * value, v.data_type(), compression);
      continue;
    }
    for (const Piece& piece : pieces_of(v)) bytes += element_count(piece.extent) * value;
  }
  return bytes;
}

std::map<std::string, std::vector<const BlockData*>> by_variable(
    const std::vector<BlockData>& blocks) {
  std::map<std::string, std::vector<const BlockData*>> grouped;
  for (const BlockData& block : blocks) grouped[block.variable->name].push_back(&block);
  return grouped;
}

}  // namespace

void Hdf5CollectiveStore::write_file(const std::string& path, int iteration,
                                     const std::vector<CollectiveVariable>& plan,
                                     const std::vector<BlockData>& blocks) const {
  Hdf5Handle file;
  try {
    write_into(file, path, iteration, plan, blocks);
  } catch (...) {
    close_after_failure(file, path);
    throw;
  }
}

void Hdf5CollectiveStore::close_after_failure(Hdf5Handle& handle,
                                              const std::string& path) const noexcept {
  const BlockingCall call({options_.store_name, path, env_.comm}, "a close after a failure");
  handle.close();
}

void Hdf5CollectiveStore::write_into(Hdf5Handle& file, const std::string& path, int iteration,
                                     const std::vector<CollectiveVariable>& plan,
                                     const std::vector<BlockData>& blocks) const {
  run_collectively(env_.comm, [&] {
    file = create_file(path);
    const BlockingCall call({options_.store_name, path, env_.comm}, "its attributes and H5Fflush");
    write_file_attributes(file.get(), env_.simulation, iteration, -1, path);
    hdf5_check(H5Fflush(file.get(), H5F_SCOPE_LOCAL), "flush the file", path);
  });
  run_collectively(env_.comm, [&] {
    if (!is_root()) return;
    reserve_space(path,
                  reservation_size(payload_bytes(plan, options_.compression), dataset_count(plan)),
                  options_.store_name);
  });
  const auto mine = by_variable(blocks);
  int rank = 0;
  MPI_Comm_rank(env_.comm, &rank);
  for (const CollectiveVariable& variable : plan) {
    const auto found = mine.find(variable.name);
    std::vector<const BlockData*> held =
        found == mine.end() ? std::vector<const BlockData*>{} : found->second;
    if (variable.per_block) {
      write_pieces(file.get(), variable, held, path);
      continue;
    }
    if (variable.replica_writer >= 0) {  // identical copies: one writer writes its first
      held.resize(variable.replica_writer == rank && !held.empty() ? 1 : 0);
    }
    write_variable(file.get(), variable, held, path);
  }
  run_collectively(env_.comm, [&] {
    const BlockingCall call({options_.store_name, path, env_.comm}, "H5Fclose");
    hdf5_check(file.close(), "close the file", path);
  });
}

void Hdf5CollectiveStore::write_variable(hid_t file, const CollectiveVariable& variable,
                                         const std::vector<const BlockData*>& mine,
                                         const std::string& path) const {
  DatasetEncoding encoding = encoding_of(variable, options_.compression);
  // Element by element (select-file=): written as it is; compressed chunks need hyperslabs.
  if (!variable.index.empty()) encoding.applied = Hdf5Compression::None;
  const Hdf5Compression configured = encoding.applied;
  if (configured == Hdf5Compression::Scaled16 || configured == Hdf5Compression::Zfp) {
    const FiniteRange values = collective_range(mine, env_.comm);
    encoding.applied = applied_to_values(configured, values);
    if (configured == Hdf5Compression::Scaled16) encoding.range = scaled_range(values);
  }
  Hdf5Handle dataset;
  run_collectively(env_.comm, [&] {
    const BlockingCall call({options_.store_name, path, env_.comm}, "H5Dcreate and attributes");
    dataset = create_dataset(file, variable, encoding, path);
    write_string_attribute(dataset.get(), "units", variable.units, path);
    if (variable.unwritten > 0) {  // the same on every writer: the attribute is collective
      write_uint64_attribute(dataset.get(), kUnwrittenCells, variable.unwritten, path);
    }
    if (options_.compression.method == Hdf5Compression::None) return;
    write_compression_attributes(dataset.get(), encoding.applied, encoding.type, encoding.range,
                                 path);
  });
  try {
    write_blocks(dataset.get(), variable, encoding, mine, path);
  } catch (...) {
    close_after_failure(dataset, path);
    throw;
  }
  run_collectively(env_.comm, [&] {  // the close writes cached chunks: its failure counts
    const BlockingCall call({options_.store_name, path, env_.comm}, "H5Dclose");
    hdf5_check(dataset.close(), "close dataset '" + variable.name + "' (writing its last data)",
               path);
  });
}

void Hdf5CollectiveStore::write_blocks(hid_t dataset, const CollectiveVariable& variable,
                                       const DatasetEncoding& encoding,
                                       const std::vector<const BlockData*>& mine,
                                       const std::string& path) const {
  for (std::size_t i = 0; i < static_cast<std::size_t>(variable.blocks); ++i) {
    const BlockData* block = i < mine.size() ? mine[i] : nullptr;
    const Selection* selection =
        block != nullptr ? selection_of(*block, selections_, {options_.store_name, env_.config})
                         : nullptr;
    run_collectively(env_.comm, [&] {
      const BlockingCall call({options_.store_name, path, env_.comm}, "H5Dwrite (collective)");
      if (selection != nullptr) {
        write_selected_block(dataset, variable, *block, *selection, path);
      } else {
        write_collective_block(dataset, variable, encoding, block, path);
      }
    });
  }
}

// One dataset per block, named as FilePerCore names them (<var>/P<source>[/B<block>]), in the
// merged order on every writer: each is created by all and written by the writer holding it.
void Hdf5CollectiveStore::write_pieces(hid_t file, const CollectiveVariable& variable,
                                       const std::vector<const BlockData*>& mine,
                                       const std::string& path) const {
  for (const Piece& one : pieces_of(variable)) {
    const int source = one.source, id = one.block;
    CollectiveVariable piece = variable;
    piece.per_block = false;
    piece.declared = one.extent;
    piece.name = block_dataset_path(variable.name, source, id, env_.domains);
    DatasetEncoding encoding = encoding_of(piece, options_.compression);
    encoding.applied = Hdf5Compression::None;
    const auto held = std::find_if(mine.begin(), mine.end(), [&](const BlockData* b) {
      return b->source == source && b->block == id;
    });
    const BlockData* block = held == mine.end() ? nullptr : *held;
    run_collectively(env_.comm, [&] {
      const BlockingCall call({options_.store_name, path, env_.comm}, "H5Dcreate and H5Dwrite");
      Hdf5Handle dataset = create_dataset(file, piece, encoding, path);
      write_string_attribute(dataset.get(), "units", piece.units, path);
      write_collective_block(dataset.get(), piece, encoding, block, path);
      hdf5_check(dataset.close(), "close dataset '" + piece.name + "'", path);
    });
  }
}

Hdf5Handle Hdf5CollectiveStore::create_file(const std::string& path) const {
  // Watched from the start: H5Pset_fapl_mpio duplicates the communicator, a collective call.
  const BlockingCall call({options_.store_name, path, env_.comm}, "H5Fcreate (collective open)");
  Hdf5Handle fapl = hdf5_own(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "create a property list", path);
  hdf5_check(H5Pset_fapl_mpio(fapl.get(), env_.comm, MPI_INFO_NULL), "select MPI-IO", path);
  hdf5_check(H5Pset_all_coll_metadata_ops(fapl.get(), 1), "make metadata reads collective", path);
  hdf5_check(H5Pset_coll_metadata_write(fapl.get(), 1), "make metadata writes collective", path);
  return hdf5_own(H5Fcreate(part_path(path).c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.get()),
                  H5Fclose, "create the file", path);
}

}  // namespace ecluse
