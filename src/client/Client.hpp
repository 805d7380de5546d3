// The simulation side of the API: checks a write, describes the block, hands it over.
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <span>
#include <string_view>
#include <vector>

#include "accounting/Accounting.hpp"
#include "client/ScratchBlocks.hpp"
#include "config/Config.hpp"
#include "config/Parameters.hpp"
#include "transport/Transport.hpp"

namespace ecluse {

/** The bytes of every block one client writes in an iteration that writes every enabled
 * variable (each of its `<domains>` blocks), with the parameters' current values. */
std::vector<std::size_t> block_bytes_per_iteration(const Config& config,
                                                   const Parameters& parameters);

class Client {
 public:
  static constexpr std::uint64_t kUnknownSize = ~std::uint64_t{0};

  Client(const Config& config, Parameters& parameters, Transport& transport, int source,
         Accounting& accounting);

  /** `held`, when known: the bytes `data` holds; fewer than the block's is refused. */
  void write(std::string_view variable, int block, const void* data,
             std::uint64_t held = kUnknownSize);
  /** write of an array whose elements are not contiguous: `source` holds the block's elements
   * (their count must be the layout's) in C order; they are packed by the transport's copy. */
  void write_strided(std::string_view variable, int block, const StridedSource& source);
  /** Zero copy: room for the block in the transport's buffer, to fill then commit; the
   * client's own memory when the block would not be handed over at its commit (handed_over_at). */
  void* alloc(std::string_view variable, int block);
  void commit(std::string_view variable, int block);
  void clear(std::string_view variable, int block);
  /** `position` in the layout's order (reversed here for a Fortran layout) or, when
   * `layout_order` is false, in C order already. */
  void set_position(std::string_view variable, int block, std::span<const std::int64_t> position,
                    bool layout_order = true);
  /** Sets a parameter; layouts that use it follow, or the old value is restored and
   * ECLUSE_INVALID_DIMENSIONS explains which layout it would break. */
  void parameter_set(std::string_view name, const void* buffer, std::size_t size);
  void end_iteration();
  /** Ends the rooms alloc gave from the client's own memory and that were not committed or
   * cleared (at the end of their iteration, as Transport::discard); returns how many. */
  std::size_t discard_allocations() { return scratch_.discard(); }
  [[nodiscard]] int iteration() const { return iteration_; }
  /** A restarted phase: this client goes on at `iteration` when it is further (it has nothing
   * unended then: stop ended it). */
  void continue_from(int iteration) {
    iteration_ = std::max(iteration_, iteration);
    wanted_.clear();  // known for another iteration
  }
  /** This client's id among the clients (the source of its blocks and signals). */
  [[nodiscard]] int source() const { return source_; }
  /** True when a block was handed over since the last end_iteration (a forgotten one). */
  [[nodiscard]] bool wrote_unended() const;
  /** Element type and dimensions (C order, ghosts included) of a variable's block. */
  [[nodiscard]] std::pair<DataType, std::vector<std::int64_t>> block_shape(
      std::string_view variable) const;
  /** Full name of a variable's layout. */
  [[nodiscard]] const std::string& layout_of(std::string_view variable) const;
  /** Number of dimensions of a variable's layout. */
  [[nodiscard]] std::size_t rank_of(std::string_view variable) const;
  /** Writes of blocks no store takes at their iteration and nothing else reads (a store's
   * frequency): accepted, not copied (block_wanted). */
  [[nodiscard]] std::uint64_t unwanted_writes() const { return unwanted_writes_; }
  /** Blocks whose write, alloc or commit returned an error (no room, a size that does not
   * match, the server gone, ...) and that were not handed over by a later call of the same
   * iteration, and writes and allocs of a variable or block the configuration does not declare:
   * their data is not stored. A second write of a block already handed over is not one (that
   * block is stored). The report counts them. */
  [[nodiscard]] std::uint64_t refused_writes() const {
    return refused_writes_ + refused_now_.size();
  }

 private:
  [[nodiscard]] const Variable& variable(std::string_view name) const;
  void check_block(const Variable& variable, int block) const;
  /** Throws ECLUSE_CHANNEL_ERROR, with the first cause, once this process lost a peer. */
  void check_peers() const;
  /** variable() and check_block() for a write or alloc: a refusal counts in refused_writes. */
  const Variable& accepted(std::string_view name, int block);
  const LayoutShape& shape(const Variable& variable) const;
  [[nodiscard]] std::vector<std::int64_t> position(const Variable& variable, int block) const;
  void refresh_shapes();
  void check_capacity() const;
  BlockData& describe(const Variable& variable, int block, const void* data);
  [[nodiscard]] std::size_t bytes_of(const BlockData& block) const;
  [[nodiscard]] bool handed_over_now(const Variable& variable, int block) const;
  void check_not_written(const Variable& variable, int block) const;
  void check_not_allocated(const Variable& variable, int block) const;
  void mark_handed_over(const Variable& variable, int block);
  /** A block refused earlier in this iteration is no longer (a retry went through). */
  void forget_refusal(const Variable& variable, int block);
  /** block_wanted for this iteration, once per variable and iteration. */
  [[nodiscard]] bool wanted(const Variable& variable);
  /** True when a block of `variable` handed over now would reach the transport: the variable
   * is enabled, not a constant already written, and wanted at this iteration. */
  [[nodiscard]] bool handed_over_at_commit(const Variable& variable, int block);
  void hand_over(const Variable& variable, int block, const void* data,
                 const StridedSource* strided, std::uint64_t held = kUnknownSize);
  /** Throws ECLUSE_ARGUMENT_ERROR when data of `held` bytes is smaller than the block. */
  void check_holds(const Variable& variable, int block, std::uint64_t held);
  /** Runs `call`; an Error it throws marks the block refused (refused_writes), then passes. */
  template <class Call>
  auto refusing(const Variable& variable, int block, Call call) -> decltype(call());

  const Config& config_;
  Parameters& parameters_;
  Transport& transport_;
  Accounting& accounting_;
  int source_;
  int iteration_ = 0;
  std::map<const Layout*, LayoutShape> shapes_;
  std::map<const Layout*, std::string> unset_;  // Damaris layouts 0 until parameter_set
  std::map<std::pair<const Variable*, int>, std::vector<std::int64_t>> positions_;
  std::map<std::pair<const Variable*, int>, BlockData> blocks_;
  // Blocks of non-time-varying variables already handed over (each block once: a Damaris
  // program may write its domains of a constant at different iterations).
  std::set<std::pair<const Variable*, int>> written_once_;
  std::set<std::pair<const Variable*, int>> written_now_;
  // (variable, block) -> the last iteration it was handed over in: an entry is made once, then
  // only updated, so a steady-state write allocates nothing.
  std::map<std::pair<const Variable*, int>, int> handed_over_;
  std::uint64_t refused_writes_ = 0;  // of the ended iterations
  std::uint64_t unwanted_writes_ = 0;
  // By variable (its index in the configuration): -1 not known yet this iteration, else 0 or 1.
  std::vector<signed char> wanted_;
  std::set<std::pair<const Variable*, int>> refused_now_;  // of this one, not handed over since
  ScratchBlocks scratch_;  // alloc's room for the blocks that will not be handed over
};

}  // namespace ecluse
