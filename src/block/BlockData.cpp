// A block's interior: its extent without the ghost cells, checked against its dimensions.
#include "block/BlockData.hpp"

#include <string>

#include "ecluse/Error.hpp"

namespace ecluse {
namespace {

std::string block_context(const BlockData& block) {
  const std::string variable = block.variable ? "variable '" + block.variable->name + "'" : "?";
  return "block " + std::to_string(block.block) + " of " + variable + " from source " +
         std::to_string(block.source);
}

std::uint64_t ghost(const std::vector<std::uint64_t>& ghosts, std::size_t d) {
  return ghosts.empty() ? 0 : ghosts[d];
}

void check_ghost_sizes(const BlockData& block) {
  const std::size_t n = block.dims.size();
  if ((block.ghost_lo.empty() || block.ghost_lo.size() == n) &&
      (block.ghost_hi.empty() || block.ghost_hi.size() == n)) {
    return;
  }
  throw Error(ECLUSE_INVALID_DIMENSIONS,
              block_context(block) + " has ghosts for " + std::to_string(block.ghost_lo.size()) +
                  ":" + std::to_string(block.ghost_hi.size()) + " dimensions but " +
                  std::to_string(n) + " dimensions");
}

}  // namespace

std::vector<std::uint64_t> BlockData::interior() const {
  check_ghost_sizes(*this);
  std::vector<std::uint64_t> extent = dims;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const std::uint64_t ghosts = ghost(ghost_lo, d) + ghost(ghost_hi, d);
    if (ghosts > dims[d]) {
      throw Error(ECLUSE_INVALID_DIMENSIONS, block_context(*this) + " has " +
                                                 std::to_string(ghosts) +
                                                 " ghost cells in dimension " + std::to_string(d) +
                                                 " of extent " + std::to_string(dims[d]));
    }
    extent[d] -= ghosts;
  }
  return extent;
}

}  // namespace ecluse
