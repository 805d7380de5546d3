// Room for an ecluse_alloc whose block will not be handed over at its commit (a variable that is
// disabled, a constant already written, an iteration no store takes): the client's own memory,
// reused from iteration to iteration, so that such a block takes no room in the node's buffer
// or in a dedicated node's memory and costs no copy or message.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <utility>

namespace ecluse {

struct Variable;

class ScratchBlocks {
 public:
  using Key = std::pair<const Variable*, int>;  // (variable, block)

  /** Room of at least `bytes` for the block, 64-byte aligned; the same memory again while its
   * earlier room suffices (a steady state allocates nothing). The block is live until it is
   * released or discarded. */
  void* take(const Key& key, std::size_t bytes);
  /** True when the block has room taken and not released since. */
  [[nodiscard]] bool live(const Key& key) const;
  /** Ends the block's room (its commit or clear); false when it had none. */
  bool release(const Key& key);
  /** Ends every live block's room (the end of an iteration); returns how many there were. */
  std::size_t discard();

 private:
  struct Free {
    void operator()(std::byte* memory) const;
  };
  struct Room {
    std::unique_ptr<std::byte[], Free> memory;
    std::size_t capacity = 0;
    bool live = false;
  };
  std::map<Key, Room> rooms_;
  std::size_t live_ = 0;
};

}  // namespace ecluse
