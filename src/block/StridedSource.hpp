// A block whose elements are not contiguous in the writer's memory (the interior of a ghosted
// array, a Fortran array section, a NumPy slice): where its elements are, and the copy that packs
// them into a contiguous block. The transports copy a block once; with a strided source that one
// copy is this packing, so such a write costs no more than a contiguous one.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace ecluse {

struct BlockData;

class StridedSource {
 public:
  static constexpr int kMaxRank = 16;  // ECLUSE_MAX_DIMENSIONS

  /** Element (i_0, ..., i_{r-1}) of the array, in C order over `extents` (the last index
   * varies fastest), is at data + sum_d i_d * byte_strides[d]; strides may be negative or zero.
   * Throws ECLUSE_ARGUMENT_ERROR, naming the write of `variable`, for a rank outside
   * 1..kMaxRank, a stride count other than the rank, a negative extent or an element count
   * that overflows. */
  StridedSource(const void* data, std::span<const std::int64_t> extents,
                std::span<const std::int64_t> byte_strides, std::string_view variable);

  /** Throws the constructor's ECLUSE_ARGUMENT_ERROR for a rank outside 1..kMaxRank (for
   * callers that receive the rank as a signed count, before they build the spans). */
  static void check_rank(std::int64_t rank, std::string_view variable);

  /** The address of element (0, ..., 0). */
  [[nodiscard]] const void* data() const { return data_; }
  /** The number of elements: the product of the extents. */
  [[nodiscard]] std::uint64_t elements() const { return elements_; }
  /** The extents as given, for messages: "(4, 6)". */
  [[nodiscard]] std::string shape_text() const;
  /** Throws ECLUSE_INVALID_DIMENSIONS, naming both shapes, unless the array has as many
   * elements as `block` (its dimensions, ghosts included). */
  void check_fits(const BlockData& block) const;
  /** How packed bytes reach the destination: copy_block's signature. */
  using Copy = void (*)(void* to, const void* from, std::size_t bytes, bool streaming);
  /** Copies the elements, `element_size` bytes each, in C order to `to` (contiguous). Dimensions
   * of extent 1 are skipped and dimensions that follow each other in memory are merged first, so
   * that the innermost run is as long as the layout allows. Contiguous runs of 64 KiB and more
   * go straight to `to` by `copy`; other elements are gathered into a 64 KiB buffer and reach
   * `to` by `copy` in pieces (with `streaming`, copy_block's non-temporal stores). */
  void pack(void* to, std::size_t element_size, Copy copy, bool streaming) const;

 private:
  const char* data_;
  std::uint64_t elements_ = 1;
  int given_rank_ = 0;
  std::array<std::int64_t, kMaxRank> given_{};  // the extents as given
  int rank_ = 0;                                // after merging
  std::array<std::int64_t, kMaxRank> extents_{};
  std::array<std::int64_t, kMaxRank> strides_{};  // bytes
};

}  // namespace ecluse
