// Store type "null": accepts every block and writes nothing, to measure Ecluse without I/O.
#pragma once

#include <vector>

#include "store/StoreBackend.hpp"

namespace ecluse {

class NullStore final : public StoreBackend {
 public:
  void write_iteration(int iteration, const std::vector<BlockData>& blocks) override;
  [[nodiscard]] bool runs_on_any_thread() const override { return true; }
  /** Blocks received so far, so that a measurement can check that data did arrive. */
  [[nodiscard]] std::size_t blocks_received() const noexcept { return blocks_received_; }

 private:
  std::size_t blocks_received_ = 0;
};

}  // namespace ecluse
