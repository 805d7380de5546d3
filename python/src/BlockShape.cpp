// Block shapes from ecluse_variable_shape, NumPy views of Ecluse's buffer, and the write check.
#include "BlockShape.hpp"

#include <algorithm>
#include <iterator>

#include "Status.hpp"

namespace nb = nanobind;

namespace ecluse_python {

namespace {

using Code = nb::dlpack::dtype_code;
// In host memory only: a GPU array's pointer (DLPack) would be read as host memory.
using ReadOnlyArray = nb::ndarray<nb::ro, nb::device::cpu>;

std::string tuple_text(std::size_t n, const std::int64_t* values) {
  std::string text = "(";
  for (std::size_t i = 0; i < n; ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return text + (n == 1 ? ",)" : ")");
}

std::string dtype_name(nb::dlpack::dtype d) {
  switch (static_cast<Code>(d.code)) {
    case Code::Int:
      return "int" + std::to_string(d.bits);
    case Code::UInt:
      return "uint" + std::to_string(d.bits);
    case Code::Float:
      return "float" + std::to_string(d.bits);
    case Code::Complex:
      return "complex" + std::to_string(d.bits);
    case Code::Bool:
      return "bool";
    default:
      return "dtype code " + std::to_string(d.code) + " of " + std::to_string(d.bits) + " bits";
  }
}

/** `text` after its indefinite article: "an int32 ...", "a float64 ...". */
std::string with_article(const std::string& text) {
  return (text.rfind("int", 0) == 0 ? "an " : "a ") + text;
}

/** "a float32 array of shape (2, 3)", with an optional adjective before the dtype. */
std::string array_text(const ReadOnlyArray& a, const std::string& adjective = "") {
  return with_article(adjective + dtype_name(a.dtype()) + " array of shape " +
                      tuple_text(a.ndim(), a.shape_ptr()));
}

/** What was passed instead of an array nanobind can take (e.g. big-endian, or not an array). */
std::string foreign_text(nb::handle object) {
  if (nb::hasattr(object, "dtype") && nb::hasattr(object, "shape")) {
    const nb::object dtype = object.attr("dtype"), shape = object.attr("shape");
    return std::string("a ") + nb::str(nb::handle(dtype)).c_str() + " array of shape " +
           nb::str(nb::handle(shape)).c_str();  // nb::str(handle) is Python's str()
  }
  return std::string("a ") + Py_TYPE(object.ptr())->tp_name;
}

// Why an object with an array's look could not be taken, and how to pass it. Any Python error
// on the way is cleared: the general hint is given then.
std::string foreign_hint(nb::handle object) {
  std::string hint =
      " Pass a numpy.ndarray in native byte order (np.ascontiguousarray(a) makes one).";
  try {
    if (nb::hasattr(object, "__dlpack_device__")) {
      const nb::object device = object.attr("__dlpack_device__")();
      const nb::object first = nb::steal(PySequence_GetItem(device.ptr(), 0));
      const long type = first ? PyLong_AsLong(first.ptr()) : -1;
      if (type != -1 && type != 1) {  // 1: kDLCPU
        hint = " It is in device memory (DLPack device type " + std::to_string(type) +
               "): copy it to host memory first (cupy.asnumpy(a), t.cpu().numpy(), ...).";
      }
    }
    if (nb::hasattr(object, "strides") && nb::hasattr(object, "itemsize")) {
      const nb::object strides = object.attr("strides");
      const long long itemsize = PyLong_AsLongLong(object.attr("itemsize").ptr());
      const Py_ssize_t n = PySequence_Size(strides.ptr());
      for (Py_ssize_t i = 0; i < n && itemsize > 0; ++i) {
        const nb::object stride = nb::steal(PySequence_GetItem(strides.ptr(), i));
        if (stride && PyLong_AsLongLong(stride.ptr()) % itemsize != 0) {
          hint = " Its strides " + std::string(nb::str(strides).c_str()) +
                 " are not whole elements of " + std::to_string(itemsize) +
                 " bytes (a field of a structured array?): pass np.ascontiguousarray(a).";
          break;
        }
      }
    }
  } catch (const std::exception&) {  // an odd object: the general hint
  }
  PyErr_Clear();
  return hint;
}

bool c_contiguous(const ReadOnlyArray& a) {
  if (!a.stride_ptr()) return true;
  std::int64_t expected = 1;  // in elements, as DLPack counts strides
  for (std::size_t i = a.ndim(); i-- > 0;) {
    if (a.shape(i) != 1 && a.stride(i) != expected) return false;
    expected *= a.shape_ptr()[i];
  }
  return true;
}

bool reversed_shape(const ReadOnlyArray& a, int ndims, const std::int64_t* dims) {
  if (a.ndim() != static_cast<std::size_t>(ndims) || ndims < 2) return false;
  return std::equal(dims, dims + ndims, std::reverse_iterator(a.shape_ptr() + ndims));
}

}  // namespace

BlockShape BlockShape::of(const char* variable) {
  BlockShape s;
  check(ecluse_variable_shape(variable, &s.type_, &s.ndims_, s.dims_, ECLUSE_MAX_DIMENSIONS));
  return s;
}

nb::dlpack::dtype BlockShape::dtype() const {
  static const nb::dlpack::dtype types[] = {
      {static_cast<std::uint8_t>(Code::Int), 8, 1},
      {static_cast<std::uint8_t>(Code::Int), 16, 1},
      {static_cast<std::uint8_t>(Code::Int), 32, 1},
      {static_cast<std::uint8_t>(Code::Int), 64, 1},
      {static_cast<std::uint8_t>(Code::Float), 32, 1},
      {static_cast<std::uint8_t>(Code::Float), 64, 1},
      {static_cast<std::uint8_t>(Code::UInt), 8, 1},  // string layouts: bytes
      {static_cast<std::uint8_t>(Code::UInt), 8, 1},
      {static_cast<std::uint8_t>(Code::UInt), 16, 1},
      {static_cast<std::uint8_t>(Code::UInt), 32, 1},
      {static_cast<std::uint8_t>(Code::UInt), 64, 1}};
  static_assert(std::size(types) == ECLUSE_TYPE_COUNT, "one dtype per ecluse_type");
  return types[std::clamp(type_, 0, static_cast<int>(ECLUSE_TYPE_COUNT) - 1)];
}

std::string BlockShape::str() const {
  return dtype_name(dtype()) + " array of shape " +
         tuple_text(static_cast<std::size_t>(ndims_), dims_);
}

nb::object BlockShape::view(void* data) const {
  std::size_t shape[ECLUSE_MAX_DIMENSIONS];
  std::copy(dims_, dims_ + ndims_, shape);
  return nb::ndarray<nb::numpy, nb::device::cpu>(data, static_cast<std::size_t>(ndims_), shape,
                                                 nb::handle(), nullptr, dtype())
      .cast(nb::rv_policy::reference);  // no owner: the default policy would copy
}

CheckedArray BlockShape::checked(const char* variable, int block, nb::handle array) const {
  ReadOnlyArray a;
  if (!nb::try_cast(array, a, false)) {
    PyErr_Clear();  // a refused conversion may leave its error set: the hint calls Python
    mismatch(variable, block, ECLUSE_ARGUMENT_ERROR, foreign_text(array), foreign_hint(array));
  }
  if (a.dtype() != dtype()) mismatch(variable, block, ECLUSE_ARGUMENT_ERROR, array_text(a), "");
  const auto n = static_cast<std::size_t>(ndims_);
  if (a.ndim() != n || !std::equal(dims_, dims_ + n, a.shape_ptr())) {
    const char* hint = reversed_shape(a, ndims_, dims_)
                           ? " Its shape is the expected one reversed: NumPy arrays are in C "
                             "order (where a layout with language=\"fortran\" has its declared "
                             "dimensions reversed); pass array.T if it is in Fortran order."
                           : "";
    mismatch(variable, block, ECLUSE_INVALID_DIMENSIONS, array_text(a), hint);
  }
  CheckedArray checked{a.data(), c_contiguous(a)};
  if (checked.contiguous) return checked;
  const auto itemsize = static_cast<std::int64_t>(a.dtype().bits / 8);
  for (std::size_t i = 0; i < n; ++i) checked.byte_strides[i] = a.stride(i) * itemsize;
  return checked;
}

void BlockShape::mismatch(const char* variable, int block, int status, const std::string& given,
                          const std::string& hint) const {
  const std::string which = block ? " block " + std::to_string(block) : "";
  char layout[256] = "?";
  ecluse_variable_layout(variable, layout, sizeof layout);  // "?" if the name is longer
  raise_error(status, "write of variable '" + std::string(variable) + "'" + which +
                          ": its layout '" + layout + "' takes " + with_article(str()) + ", got " +
                          given + "; nothing was written." + hint);
}

}  // namespace ecluse_python
