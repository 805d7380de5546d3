// Store type "null".
#include "store/NullStore.hpp"

namespace ecluse {

void NullStore::write_iteration(int /*iteration*/, const std::vector<BlockData>& blocks) {
  blocks_received_ += blocks.size();
}

}  // namespace ecluse
