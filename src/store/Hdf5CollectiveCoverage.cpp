// The cells the Collective store's blocks cover: the select-file= indices (kept per block, their
// union checked), the cells left unwritten (ecluse_unwritten_cells) and the warnings, once each.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <numeric>

#include "config/ApiNames.hpp"
#include "core/Collective.hpp"
#include "store/Compression.hpp"
#include "store/Hdf5CollectivePlan.hpp"
#include "store/Hdf5CollectiveStore.hpp"

namespace ecluse {

namespace {

// Element i of an integer block, as an index: memcpy, since a block's data need not be aligned.
template <typename T>
T element(const unsigned char* bytes, std::uint64_t i) {
  T x{};
  std::memcpy(&x, bytes + i * sizeof x, sizeof x);
  return x;
}

std::int64_t integer_at(const BlockData& block, std::uint64_t i) {
  const auto* bytes = static_cast<const unsigned char*>(block.data);
  switch (block.type) {
    case DataType::Int8:
      return element<std::int8_t>(bytes, i);
    case DataType::Int16:
      return element<std::int16_t>(bytes, i);
    case DataType::Int32:
      return element<std::int32_t>(bytes, i);
    case DataType::Int64:
      return element<std::int64_t>(bytes, i);
    case DataType::UInt8:
      return element<std::uint8_t>(bytes, i);
    case DataType::UInt16:
      return element<std::uint16_t>(bytes, i);
    case DataType::UInt32:
      return element<std::uint32_t>(bytes, i);
    case DataType::UInt64: {  // above the largest int64: read as outside the dataset
      const auto x = element<std::uint64_t>(bytes, i);
      return x > static_cast<std::uint64_t>(INT64_MAX) ? -1 : static_cast<std::int64_t>(x);
    }
    default:
      return -1;  // not an index type (refused by validation); read as outside the dataset
  }
}

/** The selection of a block whose element k goes to `indices[k]`: sorted, one element per index
 * (of elements naming the same cell, the last is written, as a later write would overwrite it;
 * MPI-IO refuses a file view that names a cell twice), and the runs of consecutive cells. */
Hdf5CollectiveStore::Selection select_by_index(const std::vector<std::int64_t>& indices) {
  Hdf5CollectiveStore::Selection selection;
  selection.elements = indices.size();
  std::vector<std::uint64_t> order(indices.size());
  std::iota(order.begin(), order.end(), std::uint64_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint64_t a, std::uint64_t b) { return indices[a] < indices[b]; });
  for (std::size_t j = 0; j < order.size(); ++j) {
    const std::int64_t cell = indices[order[j]];
    if (j + 1 < order.size() && indices[order[j + 1]] == cell) continue;  // a later one wins
    selection.sorted.push_back(cell);
    selection.order.push_back(order[j]);
    const auto at = static_cast<std::uint64_t>(cell);
    auto& runs = selection.runs;
    if (!runs.empty() && runs.back().first + runs.back().second == at) {
      ++runs.back().second;
    } else {
      runs.emplace_back(at, 1);
    }
  }
  return selection;
}

}  // namespace

// Copied at each iteration they come in (an index written once, time-varying="false", stays);
// a later block of the same source and id replaces it. Only the interior is an index.
void Hdf5CollectiveStore::take_indices(const std::vector<BlockData>& index_blocks) {
  for (const BlockData& block : index_blocks) {
    if (block.variable == nullptr || block.dims.size() != 1 || block.data == nullptr) continue;
    const std::uint64_t first = block.ghost_lo.empty() ? 0 : block.ghost_lo[0];
    const std::uint64_t count = element_count(block.interior());
    std::vector<std::int64_t> indices(count);
    for (std::uint64_t k = 0; k < count; ++k) indices[k] = integer_at(block, first + k);
    Selection selection = select_by_index(indices);
    Selection& kept = selections_[{block.variable->name, block.source, block.block}];
    if (kept.serial != 0 && kept.elements == selection.elements &&
        kept.sorted == selection.sorted && kept.order == selection.order) {
      continue;  // the same index again (written at every iteration): already checked
    }
    selection.serial = ++index_serial_;
    kept = std::move(selection);
  }
}

namespace {

// Above this many cells the union of the indices (a bitmap of one bit per cell, reduced over the
// writers) is not formed: the counts of warn_uncovered stand alone.
constexpr std::uint64_t kMaxCheckedIndexCells = std::uint64_t{1} << 28;  // a 32 MiB bitmap

/** A variable placed by select-file= whose cells check_indices counts exactly (the union of
 * its indices), so warn_uncovered's estimates from the block sizes are not said for it. */
bool counted_exactly(const CollectiveVariable& v) {
  return !v.index.empty() && !v.per_block && v.extent().size() == 1 &&
         v.extent()[0] <= kMaxCheckedIndexCells;
}

/** The cells a writer's blocks of `v` name through select-file=, one bit each. */
std::vector<std::uint64_t> index_bitmap(const CollectiveVariable& v,
                                        const std::vector<BlockData>& blocks,
                                        const Hdf5CollectiveStore::Selections& selections,
                                        std::uint64_t cells) {
  std::vector<std::uint64_t> bits((cells + 63) / 64, 0);
  for (const BlockData& block : blocks) {
    if (block.variable == nullptr || block.variable->name != v.name) continue;
    const auto found = selections.find({v.index, block.source, block.block});
    if (found == selections.end()) continue;  // refused with its variable in summarize
    for (const std::int64_t at : found->second.sorted) {
      const auto cell = static_cast<std::uint64_t>(at);  // inside: checked in selection_of
      bits[cell / 64] |= std::uint64_t{1} << (cell % 64);
    }
  }
  return bits;
}

std::string index_problems(std::uint64_t twice, std::uint64_t none) {
  std::string text;
  if (twice > 0) {
    text += std::to_string(twice) +
            " cells are named more than once (a cell named twice keeps one of its values)";
  }
  if (twice > 0 && none > 0) text += "; ";
  if (none > 0) text += std::to_string(none) + " cells are named by none (read back as 0)";
  return text;
}

}  // namespace

// select-file= takes the indices as a permutation, as Damaris does; a cell named by two clients
// or by none would be silently wrong output. The union of every writer's indices tells both,
// counted exactly: formed when a variable is first written and again when an index changes.
void Hdf5CollectiveStore::check_indices(int iteration, const std::vector<CollectiveVariable>& plan,
                                        const std::vector<BlockData>& blocks) {
  for (const CollectiveVariable& v : plan) {
    if (!v.fresh || !counted_exactly(v)) continue;
    const std::uint64_t cells = v.extent()[0];
    std::vector<std::uint64_t> bits = index_bitmap(v, blocks, selections_, cells);
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Iallreduce(MPI_IN_PLACE, bits.data(), static_cast<int>(bits.size()), MPI_UINT64_T, MPI_BOR,
                   env_.comm, &request);
    complete(request, env_.comm, "MPI_Iallreduce");
    std::uint64_t named = 0;
    for (const std::uint64_t word : bits) named += static_cast<std::uint64_t>(std::popcount(word));
    const std::uint64_t twice = v.covered > named ? v.covered - named : 0;
    const std::uint64_t none = cells - named;
    index_unwritten_[v.name] = none;  // every writer: the union is everyone's
    if ((twice == 0 && none == 0) || !is_root() || env_.log == nullptr) continue;
    if (!warned_.insert(v.name + "\n(index)").second) continue;
    env_.log->warning(variable_error_prefix(options_.store_name, v.name) + ": at iteration " +
                      std::to_string(iteration) + " its blocks are placed by the indices in '" +
                      v.index + "' (select-file=), which name " + std::to_string(named) +
                      " distinct cells of the " + std::to_string(cells) + " of " +
                      format_extent(v.extent()) + ": " + index_problems(twice, none) +
                      ". Fix: give every cell of the dataset exactly one index over all the "
                      "clients (said once per variable)");
  }
}

// Once per variable: a gap is often a decomposition that drops a remainder (64 rows on 3
// ranks), which the user wants to hear about, but not at every iteration.
void Hdf5CollectiveStore::warn_uncovered(int iteration,
                                         const std::vector<CollectiveVariable>& plan) {
  if (!is_root() || env_.log == nullptr) return;
  for (const CollectiveVariable& v : plan) {
    if (v.per_block) {
      if (!warned_.insert(v.name + "\n(pieces)").second) continue;
      env_.log->warning(
          variable_error_prefix(options_.store_name, v.name) + ": at iteration " +
          std::to_string(iteration) + " its " + std::to_string(v.total) +
          " blocks have no position and are not copies of one array, so they cannot share "
          "one dataset (Damaris would write them over each other): written one dataset per "
          "block, '" +
          v.name + "/P<source>" + (env_.domains > 1 ? "/B<block>" : "") +
          "', uncompressed, as FilePerCore names them. Fix: set a position for every block "
          "(damaris_set_position) to get one dataset (said once per variable)");
      continue;
    }
    if (options_.compression.method != Hdf5Compression::None && !v.index.empty() &&
        warned_.insert(v.name + "\n(select-file)").second) {
      env_.log->warning(variable_error_prefix(options_.store_name, v.name) +
                        ": placed element by element (select-file=), it is written "
                        "uncompressed; the store's other variables are compressed (said once "
                        "per variable)");
    }
    if (v.replica_writer >= 0 && warned_.insert(v.name + "\n(replicas)").second) {
      env_.log->warning(variable_error_prefix(options_.store_name, v.name) + ": at iteration " +
                        std::to_string(iteration) + " its " + std::to_string(v.total) +
                        " blocks have no position and hold the same bytes (every client wrote "
                        "the whole array): written once. If they are pieces of a larger array "
                        "that only happen to be equal, set each one's position (" +
                        api_call(dialect(), "set_position") +
                        "): at an iteration where they differ they are refused (one dataset "
                        "per block in a Damaris file) (said once per variable)");
    }
    if (counted_exactly(v)) continue;  // check_indices said it, with exact counts
    if (v.overlapping && warned_.insert(v.name + "\n(overlap)").second) {
      env_.log->warning(
          variable_error_prefix(options_.store_name, v.name) + ": at iteration " +
          std::to_string(iteration) + " its " + std::to_string(v.total) + " blocks hold " +
          std::to_string(v.covered) + " interior cells for a dataset of " +
          std::to_string(saturating_cells(v.extent())) + " " + format_extent(v.extent()) +
          ", so some overlap; as Damaris does (a Damaris file), every block is written and a "
          "cell written twice keeps one of its values. Fix: ghosts= for the shared cells, or "
          "positions that tile the dataset (said once per variable)");
    }
    const std::uint64_t cells = saturating_cells(v.extent());
    if (v.covered >= cells || !warned_.insert(v.name).second) continue;
    env_.log->warning(variable_error_prefix(options_.store_name, v.name) + ": at iteration " +
                      std::to_string(iteration) + " its blocks cover " + std::to_string(v.covered) +
                      " of the " + std::to_string(cells) + " cells of " +
                      format_extent(v.extent()) + "; " + std::to_string(cells - v.covered) +
                      " cells are left unwritten (read back as 0; the dataset's attribute " +
                      kUnwrittenCells +
                      " counts them at every iteration). Fix: make the blocks' positions and "
                      "sizes tile the global dimensions (said once per variable)");
  }
}

// From the merged summaries (the same on every writer), or for a variable placed by select-file=
// from the union of its indices, formed by every writer when they last changed (check_indices).
// Blocks that overlap (a Damaris file) may hide more unwritten cells than the sizes show.
void Hdf5CollectiveStore::count_unwritten(std::vector<CollectiveVariable>& plan) const {
  for (CollectiveVariable& v : plan) {
    v.unwritten = 0;
    if (v.per_block) continue;
    if (counted_exactly(v)) {
      const auto counted = index_unwritten_.find(v.name);
      if (counted != index_unwritten_.end()) v.unwritten = counted->second;
      continue;
    }
    const std::uint64_t cells = saturating_cells(v.extent());
    if (v.covered < cells) v.unwritten = cells - v.covered;
  }
}

}  // namespace ecluse
