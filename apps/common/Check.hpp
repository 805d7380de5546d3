// Error handling of the workloads: a failed Ecluse call stops every rank with its message.
// A workload has nothing to recover, and a hung rank would hide the error in a benchmark.
#pragma once

namespace apps {

/** Prints Ecluse's message for a failed call and aborts the job; returns when status is OK. */
void check(int status, const char* call);

}  // namespace apps

#define APP_CHECK(call) apps::check((call), #call)
