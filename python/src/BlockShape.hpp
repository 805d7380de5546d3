// A variable's block as the layout declares it (element type and C-order dimensions), and the
// check that a NumPy array matches it before its bytes are handed to Ecluse.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <string>

#include "ecluse/ecluse.h"

namespace ecluse_python {

/** An array that passed BlockShape::checked: where its elements are and, when they are not
 * C-contiguous (a slice, a Fortran-ordered array), the byte stride of each dimension. */
struct CheckedArray {
  const void* data = nullptr;
  bool contiguous = true;
  std::int64_t byte_strides[ECLUSE_MAX_DIMENSIONS] = {};
};

class BlockShape {
 public:
  /** The shape of `variable` with the current parameters (ecluse_variable_shape). */
  static BlockShape of(const char* variable);

  [[nodiscard]] int ndims() const { return ndims_; }
  [[nodiscard]] const std::int64_t* dims() const { return dims_; }
  [[nodiscard]] nanobind::dlpack::dtype dtype() const;
  /** The array Ecluse's buffer at `data` holds, as a NumPy array that views it (no copy). */
  [[nodiscard]] nanobind::object view(void* data) const;
  /** Where the elements of `array` are if it is an array of this dtype and shape, contiguous or
   * not; otherwise raises ecluse.Error naming the variable, the expected and the given dtype and
   * shape. */
  [[nodiscard]] CheckedArray checked(const char* variable, int block, nanobind::handle array) const;

 private:
  [[nodiscard]] std::string str() const;
  [[noreturn]] void mismatch(const char* variable, int block, int status, const std::string& given,
                             const std::string& hint) const;
  int type_ = 0;
  int ndims_ = 0;
  std::int64_t dims_[ECLUSE_MAX_DIMENSIONS] = {};
};

}  // namespace ecluse_python
