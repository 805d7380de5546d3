// Python callables as event actions: ecluse_bind takes a plain C function, so one trampoline
// looks the callable up by event name.
#pragma once

#include <nanobind/nanobind.h>

#include <optional>

namespace ecluse_python {

/** Binds `action(event, source, iteration, args)` to `event` (ecluse_bind). */
void bind_action(const char* event, nanobind::object action);
/** Forgets every bound callable (at finalize: the session that knew the events is gone). */
void clear_actions();
/** The first exception an action raised since the last call, and forgets it. */
std::optional<nanobind::python_error> take_action_failure();

}  // namespace ecluse_python
