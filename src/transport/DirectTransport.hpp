// Time partitioning: blocks are staged in this process and written at end of iteration.
#pragma once

#include <map>
#include <utility>
#include <vector>

#include "transport/Transport.hpp"
#include "writer/Writer.hpp"

namespace ecluse {

class DirectTransport : public Transport {
 public:
  explicit DirectTransport(Writer& writer) : writer_(writer) {}
  void put(const BlockData& block, std::size_t bytes) override;
  void end_iteration(int iteration) override;
  std::size_t discard() override;

 private:
  struct Slot {
    BlockData block;
    std::vector<unsigned char> bytes;  // capacity kept from iteration to iteration
    bool filled = false;
  };
  Writer& writer_;
  std::map<std::pair<const Variable*, int>, Slot> slots_;  // (variable, block id)
};

}  // namespace ecluse
