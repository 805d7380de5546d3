// The Collective store's messages about blocks that cannot share a dataset: who wrote them, in
// the program's API names, and where their global extent comes from (the layout's parameters).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "block/BlockData.hpp"
#include "config/Config.hpp"

namespace ecluse {

/** What a message of the Collective store says besides its cause: the store, the configuration
 * (the dialect, for the API's names; the layouts) and the iteration being stored. */
struct CollectiveContext {
  std::string store;
  const Config* config = nullptr;  // nullptr: a store made without one (Ecluse's names)
  int iteration = 0;
  /** "set_position" as the program calls it: damaris_set_position in a Damaris file. */
  [[nodiscard]] std::string call(std::string_view name) const;
};

/** "store 's': variable 'v'" */
std::string variable_error_prefix(const std::string& store, const std::string& variable);

/** An element of a select-file block whose index `index` lies outside the dataset: the
 * parameters of the layout's global size, with the value the block's client gave them. */
std::string index_outside_message(const BlockData& block, std::uint64_t element, std::int64_t index,
                                  const CollectiveContext& c);

/** A block lying outside its variable's global extent, at `position`: the layout's language
 * (a Fortran layout's dimensions are reversed in the file) and the parameters of the global
 * dimensions it lies outside of, with the values its client gave them. */
std::string outside_extent_message(const BlockData& block,
                                   const std::vector<std::int64_t>& position,
                                   const CollectiveContext& c);

/** One block of a variable, as the message about two that disagree names it. */
struct BlockOrigin {
  std::int64_t source = 0;
  std::int64_t block = 0;
  std::vector<std::uint64_t> declared;  // its global extent; empty when not declared
  std::size_t rank = 0;                 // its number of dimensions
};

/** Two blocks of `variable` in one iteration that disagree on its dimensions or global extent:
 * both named, the likely causes (a client out of step, a global-extent parameter set differently
 * on the clients) and the fix. */
std::string different_datasets_message(const std::string& variable, const BlockOrigin& first,
                                       const BlockOrigin& other, const CollectiveContext& c);

}  // namespace ecluse
