// How the native module reports failures: a non-zero ecluse status, or a check of its own, becomes
// ecluse.Error (ecluse/errors.py) carrying the message, the status name and the code.
#pragma once

#include <string>

namespace ecluse_python {

/** Raises ecluse.Error(message, status name, code) in Python; never returns. */
[[noreturn]] void raise_error(int status, const std::string& message);

/** Raises ecluse.Error with the C API's message if status is not ECLUSE_OK, or else the first
 * exception an action raised during the call (Actions.cpp keeps it aside). */
void check(int status);

}  // namespace ecluse_python
