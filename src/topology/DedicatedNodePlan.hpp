// Pure assignment for dedicated nodes: which nodes serve, and which server rank serves each
// client rank (by node first, then by rank).
#pragma once

#include <cstdint>
#include <vector>

#include "config/Config.hpp"
#include "config/ConfigEnums.hpp"

namespace ecluse {

struct DedicatedNodePlan {
  std::vector<bool> dedicated;    // by node: true when the node runs Ecluse servers
  std::vector<int> server_of;     // by world rank: world rank of its server, or -1 (a server)
  std::vector<int> client_index;  // by world rank: index among its server's clients, or -1
  std::vector<int> client_count;  // by world rank: a server's number of clients, else 0
  std::vector<int> served_node;   // by node: index of the dedicated node serving it, or -1
  std::vector<int> node_size;     // by node: number of ranks
  std::vector<int> node_of;       // by world rank: its node
};

/** `node_of[r]` is the node of world rank r (nodes numbered 0..N-1 by lowest rank). The
 * dedicated nodes are the last (or first) `dedicated` nodes; client nodes are split into
 * contiguous groups whose sizes differ by at most one; a dedicated node's client ranks, in
 * (node, rank) order, are split the same way over its ranks. Throws Error(ECLUSE_INIT_ERROR)
 * when a dedicated node or one of its ranks would have no client, its message starting with
 * `where` (<dedicated>'s place). */
DedicatedNodePlan plan_dedicated_nodes(const std::vector<int>& node_of, int dedicated,
                                       ServerPlacement placement, const SourceLocation& where = {});

/** The receive memory of server rank `server`: its node's `buffer_size` split equally among
 * the node's ranks. */
std::uint64_t receive_memory(const DedicatedNodePlan& plan, std::uint64_t buffer_size, int server);

/** What each client of server rank `server` may hold of its receive memory (its window). */
std::uint64_t client_window(const DedicatedNodePlan& plan, std::uint64_t buffer_size, int server);

}  // namespace ecluse
