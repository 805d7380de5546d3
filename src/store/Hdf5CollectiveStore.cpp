// HDF5 store in Collective mode: one file per iteration shared by all writers through MPI-IO.
#include "store/Hdf5CollectiveStore.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <map>
#include <numeric>
#include <set>
#include <string_view>
#include <utility>

#include "config/ApiNames.hpp"
#include "core/Collective.hpp"
#include "core/Watchdog.hpp"
#include "ecluse/Error.hpp"
#include "store/CollectiveMessages.hpp"
#include "store/Compression.hpp"
#include "store/Packer.hpp"

namespace ecluse {

/** One dataset of the shared file, as every writer knows it once the summaries are merged. */
struct CollectiveVariable {
  std::string name;
  std::string units;
  std::int64_t type = 0;                // DataType
  std::vector<std::uint64_t> declared;  // declared global extent, empty when computed
  std::vector<std::uint64_t> reach;     // max of position + interior over the blocks seen
  std::int64_t blocks = 0;              // most blocks any one writer holds
  std::int64_t source = 0, block = 0;   // the first block's, which decided the dataset
  std::int64_t total = 0;               // blocks over all writers
  std::int64_t unpositioned = 0;        // blocks whose client never called set_position
  std::uint64_t covered = 0;            // sum of the blocks' interior cells (saturating)
  std::uint64_t unwritten = 0;          // cells no block writes (count_unwritten; not sent)
  std::vector<std::uint64_t> chunk;     // the first block's interior: the compressed chunk
  // Blocks without a position, every one the whole array (Damaris programs often have every
  // client write its copy of a coordinate array): if all hold the same bytes (digests, agreed
  // after the merge), one copy is written, by this writer; -1: not such a variable.
  std::int64_t replica_writer = -1;
  bool overlapping = false;  // merged: blocks overlap, written all the same (Damaris)
  // Blocks without a position, each: source, block id, rank, interior extent (the pieces of a
  // variable whose blocks cannot share one dataset; see settle).
  std::vector<std::uint64_t> pieces;
  bool per_block = false;  // merged: written as one dataset per block (Damaris, see settle)
  // select-file=: the index variable placing its blocks ("" when placed by position); whether a
  // writer's index of it changed since the union was last checked (merged: any writer's), and
  // the newest index this writer used (not sent: see check_indices).
  std::string index;
  bool fresh = false;
  std::uint64_t serial = 0;
  // The first error of this variable (its other blocks, and the other variables, go on).
  std::int64_t status = ECLUSE_OK;
  std::string error;
  [[nodiscard]] DataType data_type() const { return static_cast<DataType>(type); }
  [[nodiscard]] const std::vector<std::uint64_t>& extent() const {
    return declared.empty() ? reach : declared;
  }
};

/** How one dataset of the shared file is compressed, the same on every writer. */
struct DatasetEncoding {
  const CompressionSettings* settings = nullptr;
  DataType type = DataType::Float64;
  std::vector<std::uint64_t> chunk;
  Hdf5Compression applied = Hdf5Compression::None;
  ScaledRange range;  // scaled16: over all writers' blocks
};

namespace {

// A dataset some of whose cells no block wrote (read back as 0) carries their count in every
// file (the warning is said once per variable): docs/hdf5-store.md.
constexpr const char* kUnwrittenCells = "ecluse_unwritten_cells";

/** What every writer writes at one iteration, and the variables refused (each with its first
 * error), the same on every writer. */
struct CollectivePlan {
  struct Refusal {
    std::string variable;
    Error error;
  };
  std::vector<CollectiveVariable> variables;
  std::vector<Refusal> refused;
};

/** What one writer sends to all others: its variables, each with its first error if refused. */
struct WriterSummary {
  std::vector<CollectiveVariable> variables;
};

std::string pack(const WriterSummary& summary) {
  Packer out;
  for (const CollectiveVariable& v : summary.variables) {
    out.put(v.name);
    out.put(v.units);
    out.put(v.type);
    out.put(v.declared);
    out.put(v.reach);
    out.put(v.blocks);
    out.put(v.source);
    out.put(v.block);
    out.put(v.total);
    out.put(v.unpositioned);
    out.put(static_cast<std::int64_t>(v.covered));
    out.put(v.chunk);
    out.put(v.pieces);
    out.put(v.index);
    out.put(static_cast<std::int64_t>(v.fresh));
    out.put(v.status);
    out.put(v.error);
  }
  return out.bytes();
}

WriterSummary unpack(std::string_view bytes) {
  Unpacker in(bytes);
  WriterSummary summary;
  while (!in.done()) {
    CollectiveVariable v;
    v.name = in.text();
    v.units = in.text();
    v.type = in.integer();
    v.declared = in.extent();
    v.reach = in.extent();
    v.blocks = in.integer();
    v.source = in.integer();
    v.block = in.integer();
    v.total = in.integer();
    v.unpositioned = in.integer();
    v.covered = static_cast<std::uint64_t>(in.integer());
    v.chunk = in.extent();
    v.pieces = in.extent();
    v.index = in.text();
    v.fresh = in.integer() != 0;
    v.status = in.integer();
    v.error = in.text();
    summary.variables.push_back(std::move(v));
  }
  return summary;
}

void check_inside(const BlockData& block, const std::vector<std::int64_t>& position,
                  const CollectiveContext& c) {
  const auto interior = block.interior();
  bool inside = block.global.size() == interior.size();
  for (std::size_t d = 0; inside && d < interior.size(); ++d) {
    inside = position[d] >= 0 &&
             static_cast<std::uint64_t>(position[d]) + interior[d] <= block.global[d];
  }
  if (inside) return;
  throw Error(ECLUSE_DATASPACE_ERROR, outside_extent_message(block, position, c));
}

void check_position(const BlockData& block, const std::vector<std::int64_t>& position,
                    const CollectiveContext& c) {
  if (!block.global.empty()) return check_inside(block, position, c);
  if (std::all_of(position.begin(), position.end(), [](std::int64_t p) { return p >= 0; })) return;
  throw Error(ECLUSE_DATASPACE_ERROR,
              "store '" + c.store + "': block " + std::to_string(block.block) + " of variable '" +
                  block.variable->name + "' from source " + std::to_string(block.source) +
                  " has a negative position " + format_extent(position));
}

constexpr std::uint64_t kSaturated = ~std::uint64_t{0} >> 1;  // fits the packer's int64

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > kSaturated - std::min(b, kSaturated) ? kSaturated : a + b;
}

std::uint64_t saturating_cells(const std::vector<std::uint64_t>& extent) {
  std::uint64_t cells = 1;
  for (std::uint64_t n : extent) {
    if (n != 0 && cells > kSaturated / n) return kSaturated;
    cells *= n;
  }
  return cells;
}

void start_variable(CollectiveVariable& v, const BlockData& block) {
  v.name = block.variable->name;
  v.units = block.variable->unit;
  v.type = static_cast<std::int64_t>(block.type);
  v.declared = block.global;
  v.reach.assign(block.dims.size(), 0);
  v.chunk = block.interior();
  v.source = block.source;
  v.block = block.block;
}

BlockOrigin origin_of(const CollectiveVariable& v) {
  return {v.source, v.block, v.declared, v.reach.size()};
}

// Blocks of one variable must agree on what the dataset is; the first block decides.
void check_same_dataset(const CollectiveVariable& a, const CollectiveVariable& b,
                        const CollectiveContext& c) {
  const std::string prefix = variable_error_prefix(c.store, a.name);
  if (a.type != b.type) {
    throw Error(ECLUSE_DATASPACE_ERROR, prefix + " has blocks of different types (" +
                                            std::string(data_type_name(a.data_type())) + " and " +
                                            std::string(data_type_name(b.data_type())) + ")");
  }
  if (a.reach.size() != b.reach.size() || a.declared != b.declared) {
    throw Error(ECLUSE_DATASPACE_ERROR,
                different_datasets_message(a.name, origin_of(a), origin_of(b), c));
  }
}

/** A 64-bit digest of a block's bytes, ghosts included (8 bytes a step: a pass over the block
 * at memory speed). Equal digests are taken as equal blocks. */
std::uint64_t digest_of(const BlockData& block) {
  const std::uint64_t bytes = element_count(block.dims) * data_type_size(block.type);
  const auto* data = static_cast<const unsigned char*>(block.data);
  std::uint64_t h = 0x9e3779b97f4a7c15ull ^ bytes;
  std::uint64_t i = 0;
  for (; data != nullptr && i + 8 <= bytes; i += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, data + i, 8);
    h = (h ^ word) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  for (; data != nullptr && i < bytes; ++i) h = (h ^ data[i]) * 0x100000001b3ull;
  return h;
}

std::string block_prefix(const BlockData& block, const std::string& store) {
  return "store '" + store + "': block " + std::to_string(block.block) + " of variable '" +
         block.variable->name + "' from source " + std::to_string(block.source);
}

/** select-file=: the dataset index of each element of `block` (its index variable's block of
 * the same source and id, kept by take_indices), or nullptr for a variable placed by position.
 * Throws when the index is missing or does not fit the block and the dataset. */
const Hdf5CollectiveStore::Selection* selection_of(
    const BlockData& block, const Hdf5CollectiveStore::Selections& selections,
    const std::string& store) {
  if (block.variable == nullptr || block.variable->select_file.empty()) return nullptr;
  const std::string& index = block.variable->select_file;
  const auto found = selections.find({index, block.source, block.block});
  if (found == selections.end()) {
    throw Error(ECLUSE_DATASPACE_ERROR,
                block_prefix(block, store) + " is placed by select-file=\"" + index +
                    "\", but no block " + std::to_string(block.block) + " of '" + index +
                    "' came from that source at or before this iteration. Fix: write '" + index +
                    "' (same block id) at the first iteration, before or with '" +
                    block.variable->name + "'");
  }
  const Hdf5CollectiveStore::Selection& selection = found->second;
  const std::vector<std::int64_t>& sorted = selection.sorted;
  const std::uint64_t cells = element_count(block.interior());
  if (selection.elements != cells) {
    throw Error(ECLUSE_DATASPACE_ERROR,
                block_prefix(block, store) + " has " + std::to_string(cells) +
                    " elements but its index '" + index + "' has " +
                    std::to_string(selection.elements) +
                    " for that block. Fix: write one index per element (the same layout size)");
  }
  // Sorted: the smallest and the largest index are the only ones that can lie outside.
  for (const std::size_t j : {std::size_t{0}, sorted.size() - 1}) {
    if (j >= sorted.size()) break;  // an empty block
    const bool inside = sorted[j] >= 0 && (block.global.empty() ||
                                           static_cast<std::uint64_t>(sorted[j]) < block.global[0]);
    if (inside) continue;
    throw Error(
        ECLUSE_DATASPACE_ERROR,
        block_prefix(block, store) + ": element " + std::to_string(selection.order[j]) +
            " has index " + std::to_string(sorted[j]) + " in '" + index +
            "', outside the dataset " +
            (block.global.empty() ? std::string("(negative)") : format_extent(block.global)) +
            ". Fix: the values of '" + index + "' must lie in 0..global size - 1");
  }
  return &selection;
}

void add_block(CollectiveVariable& v, const BlockData& block,
               const Hdf5CollectiveStore::Selection* selection, const CollectiveContext& c) {
  check_block(block, c.store);
  CollectiveVariable mine;
  start_variable(mine, block);
  if (v.blocks == 0) v = mine;
  check_same_dataset(v, mine, c);
  const auto interior = block.interior();
  if (selection != nullptr) {  // placed element by element: reaches past its largest index
    v.index = block.variable->select_file;
    v.serial = std::max(v.serial, selection->serial);
    if (!selection->sorted.empty()) {
      v.reach[0] = std::max(v.reach[0], static_cast<std::uint64_t>(selection->sorted.back()) + 1);
    }
  } else {
    const std::vector<std::int64_t> position = block_position(block);
    check_position(block, position, c);
    for (std::size_t d = 0; d < interior.size(); ++d) {
      v.reach[d] = std::max(v.reach[d], static_cast<std::uint64_t>(position[d]) + interior[d]);
    }
    if (block.position.empty()) {
      ++v.unpositioned;
      v.pieces.insert(v.pieces.end(), {static_cast<std::uint64_t>(block.source),
                                       static_cast<std::uint64_t>(block.block), interior.size()});
      v.pieces.insert(v.pieces.end(), interior.begin(), interior.end());
    }
  }
  ++v.blocks;
  ++v.total;
  v.covered = saturating_add(v.covered, saturating_cells(interior));
}

// A block refused here refuses its variable only: the others are still written.
WriterSummary summarize(const std::vector<BlockData>& blocks,
                        const Hdf5CollectiveStore::Selections& selections,
                        const CollectiveContext& c) {
  WriterSummary summary;
  std::map<std::string, CollectiveVariable> variables;
  for (const BlockData& block : blocks) {
    const std::string name = block.variable ? block.variable->name : "";
    CollectiveVariable& v = variables[name];
    if (v.status != ECLUSE_OK) continue;
    try {
      add_block(v, block, selection_of(block, selections, c.store), c);
    } catch (const Error& e) {
      v.name = name;
      v.status = e.status();
      v.error = e.what();
    }
  }
  for (auto& entry : variables) summary.variables.push_back(std::move(entry.second));
  return summary;
}

// Blocks without a position all land at the origin: with more than one block they overwrite
// each other, which is refused rather than stored as silently wrong output, unless every one
// is the whole array with the same bytes (replicas: written once, see merge).
void check_positions(const CollectiveVariable& v, const CollectiveContext& c) {
  if (v.total <= 1 || v.unpositioned == 0) return;
  throw Error(ECLUSE_DATASPACE_ERROR,
              variable_error_prefix(c.store, v.name) + ": " + std::to_string(v.unpositioned) +
                  " of its " + std::to_string(v.total) +
                  " blocks have no position and would overwrite each other at the origin. Fix: "
                  "call " +
                  c.call("set_position") + " (or " + c.call("set_block_position") +
                  ") for every block before writing it");
}

void check_overlap(const CollectiveVariable& v, const CollectiveContext& c) {
  const std::uint64_t cells = saturating_cells(v.extent());
  if (v.covered <= cells) return;
  throw Error(ECLUSE_DATASPACE_ERROR,
              variable_error_prefix(c.store, v.name) + ": its " + std::to_string(v.total) +
                  " blocks hold " + std::to_string(v.covered) +
                  " interior cells for a dataset of " + std::to_string(cells) + " " +
                  format_extent(v.extent()) +
                  ", so some overlap. Fix: check the positions given to " + c.call("set_position"));
}

void merge_variable(std::map<std::string, CollectiveVariable>& plan, const CollectiveVariable& v,
                    std::int64_t writer, const CollectiveContext& c) {
  auto [it, inserted] = plan.emplace(v.name, v);
  CollectiveVariable& known = it->second;
  if (inserted) {
    if (v.unpositioned > 0) known.replica_writer = writer;
    return;
  }
  if (known.status != ECLUSE_OK) return;  // the first error stands
  if (v.status != ECLUSE_OK) {
    known.status = v.status;
    known.error = v.error;
    return;
  }
  check_same_dataset(known, v, c);
  if (v.unpositioned > 0 && known.unpositioned == 0) known.replica_writer = writer;
  for (std::size_t d = 0; d < v.reach.size(); ++d) {
    known.reach[d] = std::max(known.reach[d], v.reach[d]);
  }
  known.blocks = std::max(known.blocks, v.blocks);
  known.total += v.total;
  known.unpositioned += v.unpositioned;
  known.covered = saturating_add(known.covered, v.covered);
  if (known.index.empty()) known.index = v.index;
  known.fresh = known.fresh || v.fresh;
  known.pieces.insert(known.pieces.end(), v.pieces.begin(), v.pieces.end());
}

/** Every block at the origin and each the whole dataset: copies, if their bytes agree. */
bool whole_copies(const CollectiveVariable& v) {
  const std::uint64_t cells = saturating_cells(v.extent());
  return v.total > 1 && v.unpositioned == v.total &&
         v.covered == saturating_cells({cells, static_cast<std::uint64_t>(v.total)});
}

/** What a Damaris file may do that an Ecluse file may not. */
struct Leniency {
  bool overlaps = false;  // write overlapping blocks (independently: not when compressing)
  bool pieces = false;    // write blocks that have no position one dataset each
};

/** Several blocks, none with a position, that are not copies of one array: a Damaris file
 * (Damaris would write them over each other at the origin) gets one dataset per block. */
bool as_pieces(CollectiveVariable& v, const Leniency& lenient) {
  if (!lenient.pieces || v.total <= 1 || v.unpositioned != v.total) return false;
  v.per_block = true;
  v.replica_writer = -1;
  return true;
}

/** Refuses `v` (throws) or makes it ready to write: whole copies are written once, by the
 * writer that holds the first (if their bytes agree: agree_on_copies). Blocks without a
 * position are refused, unless `lenient.pieces` (a Damaris file): then each is its own dataset
 * (warned). Overlapping blocks are refused, unless `lenient.overlaps` (a Damaris file, whose
 * programs often write shared boundary cells from both sides, as Damaris writes them): then
 * every block is written, independently (warned, see warn_uncovered). */
void settle(CollectiveVariable& v, const Leniency& lenient, const CollectiveContext& c) {
  if (v.status != ECLUSE_OK) throw Error(static_cast<ecluse_status>(v.status), v.error);
  if (whole_copies(v)) {
    v.blocks = 1;
    v.covered = saturating_cells(v.extent());
    return;
  }
  v.replica_writer = -1;
  if (as_pieces(v, lenient)) return;
  check_positions(v, c);
  if (lenient.overlaps && v.covered > saturating_cells(v.extent())) {
    v.overlapping = true;
    return;
  }
  check_overlap(v, c);
}

// A variable written as one dataset ("fluid") takes the name a group needs for the variables
// nested under it ("fluid/p"): those are refused, the others written.
void refuse_nested_in_datasets(CollectivePlan& plan, std::map<std::string, Error>& refused,
                               const std::string& store) {
  std::vector<std::string> datasets;
  for (const CollectiveVariable& v : plan.variables) {
    if (!v.per_block) datasets.push_back(v.name);
  }
  std::erase_if(plan.variables, [&](const CollectiveVariable& v) {
    for (const std::string& d : datasets) {
      if (v.name.size() <= d.size() || v.name.compare(0, d.size() + 1, d + "/") != 0) continue;
      refused.emplace(v.name, Error(ECLUSE_DATASPACE_ERROR,
                                    variable_error_prefix(store, v.name) +
                                        ": its dataset would go "
                                        "in group '" +
                                        d + "', but '" + d +
                                        "' is the dataset of "
                                        "variable '" +
                                        d +
                                        "' in this Collective file; rename one of "
                                        "them (a variable and a group cannot share a name here)"));
      return true;
    }
    return false;
  });
}

// Runs on every writer with the same input, so every writer plans the same datasets and refuses
// the same variables (with the same first error, in `refused`).
CollectivePlan merge(const std::vector<std::string>& packed, const Leniency& lenient,
                     const CollectiveContext& c) {
  std::map<std::string, CollectiveVariable> merged;
  std::map<std::string, Error> refused;
  for (std::size_t writer = 0; writer < packed.size(); ++writer) {
    const WriterSummary s = unpack(packed[writer]);
    for (const CollectiveVariable& v : s.variables) {
      if (refused.count(v.name) != 0) continue;
      try {
        merge_variable(merged, v, static_cast<std::int64_t>(writer), c);
      } catch (const Error& e) {
        refused.emplace(v.name, e);
      }
    }
  }
  CollectivePlan plan;
  for (auto& [name, v] : merged) {
    if (refused.count(name) != 0) continue;
    try {
      settle(v, lenient, c);
      plan.variables.push_back(std::move(v));
    } catch (const Error& e) {
      refused.emplace(name, e);
    }
  }
  refuse_nested_in_datasets(plan, refused, c.store);
  for (auto& [name, error] : refused) plan.refused.push_back({name, std::move(error)});
  return plan;
}

/** Digests of this writer's blocks of each variable written as one copy (plan order). */
std::string copy_digests(const std::vector<CollectiveVariable>& plan,
                         const std::vector<BlockData>& blocks) {
  Packer out;
  for (const CollectiveVariable& v : plan) {
    if (v.replica_writer < 0) continue;
    std::vector<std::uint64_t> digests;
    for (const BlockData& block : blocks) {
      if (block.variable != nullptr && block.variable->name == v.name) {
        digests.push_back(digest_of(block));
      }
    }
    out.put(digests);
  }
  return out.bytes();
}

/** The variables planned as one copy stay so only if every writer's copies have the same
 * digest; the others are refused as blocks that would overwrite each other. A second exchange,
 * only in an iteration that has such variables; the same outcome on every writer. */
void agree_on_copies(CollectivePlan& plan, const std::vector<BlockData>& blocks, MPI_Comm comm,
                     const Leniency& lenient, const CollectiveContext& c) {
  const bool any = std::any_of(plan.variables.begin(), plan.variables.end(),
                               [](const CollectiveVariable& v) { return v.replica_writer >= 0; });
  if (!any) return;
  const std::vector<std::string> packed =
      gather_strings(comm, copy_digests(plan.variables, blocks));
  std::vector<Unpacker> writers(packed.begin(), packed.end());
  std::vector<CollectiveVariable> kept;
  for (CollectiveVariable& v : plan.variables) {
    if (v.replica_writer < 0) {
      kept.push_back(std::move(v));
      continue;
    }
    std::set<std::uint64_t> seen;
    for (Unpacker& in : writers) {
      for (std::uint64_t d : in.extent()) seen.insert(d);
    }
    if (seen.size() <= 1 || as_pieces(v, lenient)) {
      kept.push_back(std::move(v));
      continue;
    }
    try {
      check_positions(v, c);
    } catch (const Error& e) {
      plan.refused.push_back({v.name, e});
    }
  }
  plan.variables = std::move(kept);
}

/** The error of an iteration written without its refused variables: the first refusal, and
 * what was written all the same. */
Error partial_error(const CollectivePlan& plan) {
  std::string names;
  for (const auto& refusal : plan.refused) names += (names.empty() ? "" : ", ") + refusal.variable;
  const Error& first = plan.refused.front().error;
  return Error(first.status(), std::string(first.what()) + " (the iteration's file holds its " +
                                   std::to_string(plan.variables.size()) +
                                   " other variable(s); left out: " + names + ")");
}

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

Hdf5CollectiveStore::Hdf5CollectiveStore(Hdf5Options options, StoreEnv env)
    : options_(std::move(options)), env_(std::move(env)) {
  check_compression_built(options_.compression, options_.store_name);
}

Dialect Hdf5CollectiveStore::dialect() const {
  return env_.config == nullptr ? Dialect::Ecluse : env_.config->dialect;
}

bool Hdf5CollectiveStore::is_root() const {
  int rank = 0;
  MPI_Comm_rank(env_.comm, &rank);
  return rank == 0;
}

void Hdf5CollectiveStore::write_iteration(int iteration, const std::vector<BlockData>& blocks) {
  quiet_hdf5_errors();
  split_.clear();
  const CollectiveContext context{options_.store_name, env_.config, iteration};
  WriterSummary mine = summarize(blocks, selections_, context);
  for (CollectiveVariable& v : mine.variables) {
    const auto checked = index_checked_.find(v.name);
    v.fresh = v.serial > (checked == index_checked_.end() ? 0 : checked->second);
  }
  const auto packed = gather_strings(env_.comm, pack(mine));
  // Overlapping blocks of a Damaris file are written independently (MPI-IO's collective
  // buffering does not take overlapping requests); compressed datasets need collective writes.
  const bool damaris = dialect() == Dialect::Damaris;
  const Leniency lenient{damaris && options_.compression.method == Hdf5Compression::None, damaris};
  CollectivePlan agreed = merge(packed, lenient, context);
  agree_on_copies(agreed, blocks, env_.comm, lenient, context);
  const std::vector<CollectiveVariable>& plan = agreed.variables;
  if (plan.empty() && !agreed.refused.empty()) throw agreed.refused.front().error;
  if (plan.empty()) return;
  for (const CollectiveVariable& v : plan) {
    if (v.per_block) split_.insert(v.name);
  }
  check_indices(iteration, plan, blocks);
  count_unwritten(agreed.variables);
  for (const CollectiveVariable& v : mine.variables) {
    const bool planned = std::any_of(plan.begin(), plan.end(),
                                     [&](const CollectiveVariable& p) { return p.name == v.name; });
    if (v.serial > 0 && planned) index_checked_[v.name] = v.serial;
  }
  warn_uncovered(iteration, plan);
  const std::string path = output_file_path(options_, env_.simulation, iteration, 0, 0);
  const std::string directory = std::filesystem::path(path).parent_path().string();
  run_collectively(env_.comm, [&] {
    if (is_root()) ensure_output_directory(directory, options_.store_name, options_.sync);
    if (is_root()) check_part_absent(path);  // before the try: that part is not ours
  });
  try {
    write_file(path, iteration, plan, blocks);
    // Every writer flushes what it wrote (on a parallel file system, its own client's cache)
    // before the first one renames: the others here, the first in publish_part.
    if (options_.sync) {
      run_collectively(env_.comm, [&] {
        if (!is_root()) sync_part(path, options_.store_name);
      });
    }
  } catch (...) {
    if (is_root()) discard_part(path);
    throw;
  }
  run_collectively(env_.comm, [&] {
    if (is_root()) publish_part(path, options_);
  });
  // Written without the refused variables: the simulation hears of them all the same.
  if (!agreed.refused.empty()) throw partial_error(agreed);
}

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
        block != nullptr ? selection_of(*block, selections_, options_.store_name) : nullptr;
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

namespace {

std::int64_t integer_at(const BlockData& block, std::uint64_t i) {
  const auto* bytes = static_cast<const unsigned char*>(block.data);
  switch (block.type) {
    case DataType::Int8:
      return static_cast<std::int8_t>(bytes[i]);
    case DataType::Int16: {
      std::int16_t x = 0;
      std::memcpy(&x, bytes + i * sizeof x, sizeof x);
      return x;
    }
    case DataType::Int32: {
      std::int32_t x = 0;
      std::memcpy(&x, bytes + i * sizeof x, sizeof x);
      return x;
    }
    case DataType::Int64: {
      std::int64_t x = 0;
      std::memcpy(&x, bytes + i * sizeof x, sizeof x);
      return x;
    }
    case DataType::UInt8:
      return bytes[i];
    case DataType::UInt16: {
      std::uint16_t x = 0;
      std::memcpy(&x, bytes + i * sizeof x, sizeof x);
      return x;
    }
    case DataType::UInt32: {
      std::uint32_t x = 0;
      std::memcpy(&x, bytes + i * sizeof x, sizeof x);
      return x;
    }
    case DataType::UInt64: {  // above the largest int64: read as outside the dataset
      std::uint64_t x = 0;
      std::memcpy(&x, bytes + i * sizeof x, sizeof x);
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
