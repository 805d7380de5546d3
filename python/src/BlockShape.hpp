// A variable's block as the layout declares it (element type and C-order dimensions), and the
// check that a NumPy array matches it before its bytes are handed to Ecluse.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <string>

#include "ecluse/ecluse.h"

namespace ecluse_python {

class BlockShape {
 public:
  /** The shape of `variable` with the current parameters (ecluse_variable_shape). */
  static BlockShape of(const char* variable);

  [[nodiscard]] int ndims() const { return ndims_; }
  [[nodiscard]] nanobind::dlpack::dtype dtype() const;
  /** The array Ecluse's buffer at `data` holds, as a NumPy array that views it (no copy). */
  [[nodiscard]] nanobind::object view(void* data) const;
  /** The data of `array` if it is a C-contiguous array of this dtype and shape; otherwise raises
   * ecluse.Error naming the variable, the expected and the given dtype and shape (Session.write
   * makes a non-contiguous array contiguous before). */
  [[nodiscard]] const void* checked(const char* variable, int block, nanobind::handle array) const;

 private:
  [[nodiscard]] std::string str() const;
  [[noreturn]] void mismatch(const char* variable, int block, int status, const std::string& given,
                             const std::string& hint) const;
  int type_ = 0;
  int ndims_ = 0;
  std::int64_t dims_[ECLUSE_MAX_DIMENSIONS] = {};
};

}  // namespace ecluse_python
