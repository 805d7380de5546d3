// In-situ work attached to a writer: what the configuration asks the servers (DC, DN) or the
// clients (TP) to do with each iteration's blocks besides storing them.
#pragma once

#include <mpi.h>

#include <string>

#include "action/EventTable.hpp"
#include "config/Config.hpp"
#include "core/Log.hpp"
#include "topology/Topology.hpp"
#include "writer/Writer.hpp"

namespace ecluse {

/** What in-situ work may know of where it runs. */
struct InSituContext {
  const Config& config;
  const Topology& topology;
  MPI_Comm writers;  // the servers' communicator (DC, DN) or the clients' (TP)
  std::string job;   // run-unique identifier, the same on every rank
  Log& log;
  EventTable& events;
};

/** Makes the hooks the configuration asks for and adds them to `writer`. Collective over
 * `context.writers` (errors agreed by all writers). */
void attach_insitu(Writer& writer, const InSituContext& context);

}  // namespace ecluse
