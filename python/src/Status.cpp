// The binding's one error path: C status codes and the binding's own checks to ecluse.Error.
#include "Status.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "ecluse/ecluse.h"

namespace nb = nanobind;

namespace ecluse_python {

namespace {

/** ecluse.errors.Error, looked up once (the module outlives every call). */
nb::handle error_class() {
  static nb::handle cls = nb::object(nb::module_::import_("ecluse.errors").attr("Error")).release();
  return cls;
}

}  // namespace

void raise_error(int status, const std::string& message) {
  nb::object error = error_class()(message, ecluse_status_name(status), status);
  PyErr_SetObject(error_class().ptr(), error.ptr());
  throw nb::python_error();
}

void check(int status) {
  if (status != ECLUSE_OK) raise_error(status, ecluse_error_message());
  if (PyErr_Occurred()) throw nb::python_error();
}

}  // namespace ecluse_python
