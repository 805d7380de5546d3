// The packing copy of a strided block: dimensions merged where memory allows, the innermost run
// copied as one memcpy when contiguous or one element at a time, the outer ones counted like an
// odometer.
#include "block/StridedSource.hpp"

#include <algorithm>
#include <cstring>

#include "block/BlockData.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {
namespace {

template <typename Int>
std::string text_of(std::span<const Int> extents) {
  std::string text = "(";
  for (std::size_t d = 0; d < extents.size(); ++d) {
    text += (d ? ", " : "") + std::to_string(extents[d]);
  }
  return text + (extents.size() == 1 ? ",)" : ")");
}

std::string subject_of(std::string_view variable) {
  return "write of variable '" + std::string(variable) + "'";
}

void check_shape(std::span<const std::int64_t> extents, std::span<const std::int64_t> strides,
                 std::string_view variable) {
  StridedSource::check_rank(static_cast<std::int64_t>(extents.size()), variable);
  const int rank = static_cast<int>(extents.size());
  if (strides.size() != extents.size()) {
    throw Error(ECLUSE_ARGUMENT_ERROR,
                subject_of(variable) + ": " + std::to_string(strides.size()) + " strides for " +
                    std::to_string(rank) + " extents; pass one stride per dimension.");
  }
  for (int d = 0; d < rank; ++d) {
    if (extents[d] >= 0) continue;
    throw Error(ECLUSE_ARGUMENT_ERROR, subject_of(variable) + ": extent " +
                                           std::to_string(extents[d]) + " in dimension " +
                                           std::to_string(d) + " of the array passed is negative.");
  }
}

/** `run` elements of `size` bytes, `step` bytes apart, to `out` (contiguous). Inlined with the
 * sizes of the layout types as constants: one load and one store per element. */
inline void copy_elements(char* out, const char* from, std::int64_t run, std::int64_t step,
                          std::size_t size) {
  std::int64_t k = 0;
  // Unrolled by 4: the one-element loop ran 1.3-1.7x slower than the same loop in another
  // binary, depending on where it fell against 64-byte code boundaries (bench/fortran).
  for (; k + 4 <= run; k += 4) {
    std::memcpy(out, from, size);
    std::memcpy(out + size, from + step, size);
    std::memcpy(out + 2 * size, from + 2 * step, size);
    std::memcpy(out + 3 * size, from + 3 * step, size);
    out += 4 * size;
    from += 4 * step;
  }
  for (; k < run; ++k) {
    std::memcpy(out, from, size);
    out += size;
    from += step;
  }
}

void gather(char* out, const char* from, std::int64_t run, std::int64_t step, std::size_t size) {
  switch (size) {
    case 8:
      return copy_elements(out, from, run, step, 8);
    case 4:
      return copy_elements(out, from, run, step, 4);
    case 2:
      return copy_elements(out, from, run, step, 2);
    case 1:
      return copy_elements(out, from, run, step, 1);
    default:
      return copy_elements(out, from, run, step, size);
  }
}

/** The destination of a pack: elements gathered one by one go through a 64 KiB buffer that stays
 * in the cache and leave it in pieces by `copy` (wide or, for large blocks, streaming stores);
 * contiguous runs of a buffer or more go straight. 64 KiB rather than 16: each streaming piece
 * ends with a fence (bench/fortran, dedicated cores, 4-16 MiB sections). */
class Sink {
 public:
  Sink(char* out, StridedSource::Copy copy, bool streaming)
      : out_(out), copy_(copy), streaming_(streaming) {}
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;
  ~Sink() = default;

  void run(const char* from, std::int64_t elements, std::int64_t step, std::size_t size) {
    const auto bytes = static_cast<std::size_t>(elements) * size;
    if (step == static_cast<std::int64_t>(size) && bytes >= kBounce) {
      flush();
      copy_(out_, from, bytes, streaming_);
      out_ += bytes;
      return;
    }
    while (elements > 0) {
      if (filled_ + size > kBounce) flush();
      const auto room = static_cast<std::int64_t>((kBounce - filled_) / size);
      const std::int64_t n = std::min(elements, room);
      if (step == static_cast<std::int64_t>(size)) {
        std::memcpy(buffer_ + filled_, from, static_cast<std::size_t>(n) * size);
      } else {
        gather(buffer_ + filled_, from, n, step, size);
      }
      filled_ += static_cast<std::size_t>(n) * size;
      from += n * step;
      elements -= n;
    }
  }

  void flush() {
    if (filled_ == 0) return;
    copy_(out_, buffer_, filled_, streaming_);
    out_ += filled_;
    filled_ = 0;
  }

 private:
  static constexpr std::size_t kBounce = 65536;
  char* out_;
  StridedSource::Copy copy_;
  bool streaming_;
  std::size_t filled_ = 0;
  alignas(64) char buffer_[kBounce];
};

}  // namespace

void StridedSource::check_rank(std::int64_t rank, std::string_view variable) {
  if (rank >= 1 && rank <= kMaxRank) return;
  throw Error(ECLUSE_ARGUMENT_ERROR, subject_of(variable) + ": the array passed has rank " +
                                         std::to_string(rank) + "; pass a rank from 1 to " +
                                         std::to_string(kMaxRank) + ".");
}

StridedSource::StridedSource(const void* data, std::span<const std::int64_t> extents,
                             std::span<const std::int64_t> byte_strides, std::string_view variable)
    : data_(static_cast<const char*>(data)) {
  check_shape(extents, byte_strides, variable);
  given_rank_ = static_cast<int>(extents.size());
  for (int d = 0; d < given_rank_; ++d) {
    given_[d] = extents[d];
    const auto n = static_cast<std::uint64_t>(extents[d]);
    if (n != 0 && elements_ > UINT64_MAX / n) {
      throw Error(ECLUSE_ARGUMENT_ERROR, subject_of(variable) + ": the array passed, of shape " +
                                             shape_text() + ", has more elements than 2^64.");
    }
    elements_ *= n;
    if (n == 1) continue;  // a dimension of one element moves nothing
    // Merged into the previous dimension when its stride steps over this whole dimension.
    std::int64_t span = 0;
    if (rank_ > 0 && !__builtin_mul_overflow(extents[d], byte_strides[d], &span) &&
        strides_[rank_ - 1] == span) {
      extents_[rank_ - 1] *= extents[d];
      strides_[rank_ - 1] = byte_strides[d];
      continue;
    }
    extents_[rank_] = extents[d];
    strides_[rank_] = byte_strides[d];
    ++rank_;
  }
  if (rank_ == 0) {  // a single element
    extents_[0] = 1;
    strides_[0] = 0;
    rank_ = 1;
  }
}

std::string StridedSource::shape_text() const {
  return text_of(std::span<const std::int64_t>(given_.data(), given_rank_));
}

void StridedSource::check_fits(const BlockData& block) const {
  std::uint64_t elements = 1;
  for (std::uint64_t n : block.dims) elements *= n;
  if (elements == elements_) return;
  const Variable& v = *block.variable;
  throw Error(ECLUSE_INVALID_DIMENSIONS,
              "write of block " + std::to_string(block.block) + " of variable '" + v.name +
                  "': its layout '" + v.layout + "' has shape " +
                  text_of(std::span<const std::uint64_t>(block.dims)) + " in C order, " +
                  std::to_string(elements) + " elements (ghosts included), but the array " +
                  "passed has shape " + shape_text() +
                  " (in C order too: a Fortran array's dimensions reversed), " +
                  std::to_string(elements_) +
                  " elements; pass an array of the layout's size. Nothing was written.");
}

void StridedSource::pack(void* to, std::size_t element_size, Copy copy, bool streaming) const {
  if (elements_ == 0) return;  // an empty array: nothing to read
  Sink sink(static_cast<char*>(to), copy, streaming);
  const int inner = rank_ - 1;
  const std::int64_t run = extents_[inner];
  const std::int64_t step = strides_[inner];
  std::array<std::int64_t, kMaxRank> index{};
  const char* from = data_;
  for (;;) {
    sink.run(from, run, step, element_size);
    int d = inner - 1;
    for (; d >= 0; --d) {
      from += strides_[d];
      if (++index[d] < extents_[d]) break;
      from -= strides_[d] * extents_[d];
      index[d] = 0;
    }
    if (d < 0) break;
  }
  sink.flush();
}

}  // namespace ecluse
