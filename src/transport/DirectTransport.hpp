// Time partitioning: blocks are staged in this process and written at end of iteration.
#pragma once

#include <map>
#include <utility>
#include <vector>

#include "transport/IterationAgreement.hpp"
#include "transport/Transport.hpp"
#include "writer/Writer.hpp"

namespace ecluse {

class DirectTransport : public Transport {
 public:
  /** `agreement`: the clients agree on the iteration before each store (null: they need not). */
  DirectTransport(Writer& writer, IterationAgreement* agreement)
      : writer_(writer), agreement_(agreement) {}
  bool put(const BlockData& block, std::size_t bytes, const StridedSource* strided) override;
  void* alloc(const BlockData& block, std::size_t bytes) override;
  void commit(const Variable& variable, int block) override;
  void clear(const Variable& variable, int block) override;
  [[nodiscard]] bool allocated_now(const Variable& variable, int block) const override;
  void end_iteration(int iteration) override;
  bool signal(const std::string&, int) override { return false; }
  void stop() override {}
  std::size_t discard() override;

 private:
  struct Slot {
    BlockData block;
    std::vector<unsigned char> bytes;  // capacity kept from iteration to iteration
    bool filled = false;
    bool allocated = false;
  };
  Slot& slot(const Variable& variable, int block);
  Writer& writer_;
  IterationAgreement* agreement_;
  std::map<std::pair<const Variable*, int>, Slot> slots_;  // (variable, block id)
};

}  // namespace ecluse
