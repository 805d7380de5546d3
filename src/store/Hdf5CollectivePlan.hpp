// The Collective store's plan of one iteration, shared by its files: each writer's summary of
// its blocks, merged the same way on every writer into the datasets to write and the refusals.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "block/BlockData.hpp"
#include "core/DataType.hpp"
#include "ecluse/Error.hpp"
#include "store/CollectiveMessages.hpp"
#include "store/Hdf5CollectiveStore.hpp"

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

// A dataset some of whose cells no block wrote (read back as 0) carries their count in every
// file (the warning is said once per variable): docs/hdf5-store.md.
inline constexpr const char* kUnwrittenCells = "ecluse_unwritten_cells";

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

/** What a Damaris file may do that an Ecluse file may not. */
struct Leniency {
  bool overlaps = false;  // write overlapping blocks (independently: not when compressing)
  bool pieces = false;    // write blocks that have no position one dataset each
};

/** This writer's summary as bytes for gather_strings (merge unpacks every writer's). */
std::string pack(const WriterSummary& summary);
/** This writer's summary of `blocks`: a block refused refuses its variable only. */
WriterSummary summarize(const std::vector<BlockData>& blocks,
                        const Hdf5CollectiveStore::Selections& selections,
                        const CollectiveContext& c);
/** Every writer's packed summary merged into the plan, the same on every writer. */
CollectivePlan merge(const std::vector<std::string>& packed, const Leniency& lenient,
                     const CollectiveContext& c);
/** The variables planned as one copy stay so only if every writer's copies have the same
 * digest; the others are refused as blocks that would overwrite each other. A second exchange,
 * only in an iteration that has such variables; the same outcome on every writer. */
void agree_on_copies(CollectivePlan& plan, const std::vector<BlockData>& blocks, MPI_Comm comm,
                     const Leniency& lenient, const CollectiveContext& c);
/** The error of an iteration written without its refused variables: the first refusal, and
 * what was written all the same. */
Error partial_error(const CollectivePlan& plan);
/** select-file=: the dataset index of each element of `block` (its index variable's block of
 * the same source and id, kept by take_indices), or nullptr for a variable placed by position.
 * Throws when the index is missing or does not fit the block and the dataset. */
const Hdf5CollectiveStore::Selection* selection_of(
    const BlockData& block, const Hdf5CollectiveStore::Selections& selections,
    const CollectiveContext& c);
/** The cells of `extent`, saturated at the largest value the packer's int64 holds. */
std::uint64_t saturating_cells(const std::vector<std::uint64_t>& extent);

}  // namespace ecluse
