// The Collective store's plan: each writer summarizes its blocks, every summary is merged the
// same way on every writer, which then all write the same datasets and refuse the same variables.
#include "store/Hdf5CollectivePlan.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "core/Collective.hpp"
#include "store/Hdf5Support.hpp"
#include "store/Packer.hpp"

namespace ecluse {

namespace {

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

}  // namespace

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

std::uint64_t saturating_cells(const std::vector<std::uint64_t>& extent) {
  std::uint64_t cells = 1;
  for (std::uint64_t n : extent) {
    if (n != 0 && cells > kSaturated / n) return kSaturated;
    cells *= n;
  }
  return cells;
}

const Hdf5CollectiveStore::Selection* selection_of(
    const BlockData& block, const Hdf5CollectiveStore::Selections& selections,
    const CollectiveContext& c) {
  const std::string& store = c.store;
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
    throw Error(ECLUSE_DATASPACE_ERROR,
                block_prefix(block, store) + ": " +
                    index_outside_message(block, selection.order[j], sorted[j], c));
  }
  return &selection;
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
      add_block(v, block, selection_of(block, selections, c), c);
    } catch (const Error& e) {
      v.name = name;
      v.status = e.status();
      v.error = e.what();
    }
  }
  for (auto& entry : variables) summary.variables.push_back(std::move(entry.second));
  return summary;
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

Error partial_error(const CollectivePlan& plan) {
  std::string names;
  for (const auto& refusal : plan.refused) names += (names.empty() ? "" : ", ") + refusal.variable;
  const Error& first = plan.refused.front().error;
  return Error(first.status(), std::string(first.what()) + " (the iteration's file holds its " +
                                   std::to_string(plan.variables.size()) +
                                   " other variable(s); left out: " + names + ")");
}

}  // namespace ecluse
