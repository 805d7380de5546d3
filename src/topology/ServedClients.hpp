// Which simulation ranks a writer gets the blocks of, known from the placement at initialize:
// what a <pyscript> lists as its known clients (Damaris's listknownclients()).
#pragma once

#include <vector>

#include "topology/Topology.hpp"

namespace ecluse {

/** Ranks in topology.clients() (the `source` of their blocks), sorted, of the clients whose
 * blocks reach this rank's writer: a dedicated core's clients (with <dedicated roles>, an
 * analysis core's are those of the storing cores that forward to it), a dedicated node rank's
 * clients, and under time partitioning the client itself. */
std::vector<int> served_clients(const Topology& topology);

}  // namespace ecluse
