// The binding's one error path: C status codes and the binding's own checks to ecluse.Error.
#include "Status.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "Actions.hpp"
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
  std::optional<nb::python_error> action = take_action_failure();
  if (status != ECLUSE_OK && action) {  // the call's own error wins; the action's is printed
    action->restore();
    PyErr_WriteUnraisable(nullptr);
  }
  if (status != ECLUSE_OK) raise_error(status, ecluse_error_message());
  if (action) throw std::move(*action);
}

}  // namespace ecluse_python
