// The trampoline runs the callable with the GIL (the call that fired it released it). The first
// exception is kept aside, not left in the error indicator: later actions of the same C call (a
// server's start() runs the whole simulation's) must run with no exception pending. check()
// raises it once the C call returns; later ones are printed as unraisable, not lost.
#include "Actions.hpp"

#include <map>
#include <optional>
#include <string>
#include <utility>

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

/** The first exception an action raised since the last check() (all under the GIL). */
std::optional<nb::python_error>& first_failure() {
  static auto* slot = new std::optional<nb::python_error>();
  return *slot;
}

void trampoline(const char* event, int32_t source, int32_t iteration, const char* args) {
  nb::gil_scoped_acquire gil;
  const auto it = actions().find(event);
  if (it == actions().end()) return;
  try {
    it->second(event, source, iteration, args);
  } catch (nb::python_error& e) {
    if (!first_failure()) {
      first_failure().emplace(std::move(e));
      return;
    }
    e.restore();
    PyErr_WriteUnraisable(it->second.ptr());
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

std::optional<nb::python_error> take_action_failure() {
  return std::exchange(first_failure(), std::nullopt);
}

}  // namespace ecluse_python
