// The trampoline runs the callable with the GIL (the call that fired it released it); a Python
// exception stays in the thread's error indicator, which check() raises once the C call returns.
#include "Actions.hpp"

#include <map>
#include <string>

#include "Status.hpp"
#include "ecluse/ecluse.h"

namespace nb = nanobind;

namespace ecluse_python {

namespace {

/** Never destroyed: Python objects must not outlive the interpreter in a static destructor. */
std::map<std::string, nb::object>& actions() {
  static auto* table = new std::map<std::string, nb::object>();
  return *table;
}

void trampoline(const char* event, int32_t source, int32_t iteration, const char* args) {
  nb::gil_scoped_acquire gil;
  try {
    auto it = actions().find(event);
    if (it != actions().end()) it->second(event, source, iteration, args);
  } catch (nb::python_error& e) {
    if (!PyErr_Occurred()) e.restore();  // the first failure wins
  }
}

}  // namespace

void bind_action(const char* event, nb::object action) {
  if (!PyCallable_Check(action.ptr())) {
    raise_error(ECLUSE_BIND_ERROR, "bind of event '" + std::string(event) + "': " +
                                       Py_TYPE(action.ptr())->tp_name + " is not callable.");
  }
  check(ecluse_bind(event, trampoline));
  actions()[event] = std::move(action);
}

void clear_actions() {
  actions().clear();
}

}  // namespace ecluse_python
