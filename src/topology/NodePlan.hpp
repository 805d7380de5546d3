// Pure role assignment inside one node: which local ranks are servers, which server serves whom.
#pragma once

#include <string>
#include <vector>

#include "config/Config.hpp"
#include "config/ConfigEnums.hpp"
#include "core/Role.hpp"

namespace ecluse {

struct NodePlan {
  std::vector<Role> roles;        // by node-local rank
  std::vector<int> server_index;  // by node-local rank: a server's index (0..k-1), or the
                                  // index of the server a client is assigned to
  std::vector<int> client_index;  // by node-local rank: index among the node's clients, or -1
  int clients = 0;
  int servers = 0;
  std::vector<ServerRole> server_roles;  // by server index: every Store when symmetric
  std::vector<int> forward_to;  // by server index: the analysis server a storing server hands
                                // its blocks to once stored, or -1 (it releases them)
  // A Damaris file's mask this node cannot satisfy: the node took Damaris's placement (the last
  // local ranks) and this says so ("" otherwise), for initialize and ecluse-check to warn.
  std::string placement_warning;
  /** The node-local client indices whose blocks reach server `index` (directly, or forwarded
   * by a storing server when `index` is an analysis server). */
  [[nodiscard]] std::vector<int> clients_of(int index) const;
};

/** k dedicated cores among local_size ranks, placed last (default) or first, or where
 * <placement mask start step blocksize> says (`cores`); clients, in local-rank order, are spread
 * over the servers in contiguous groups whose sizes differ by at most one. With `roles`
 * (<dedicated roles>), clients go to the storing servers only, and storing server i forwards
 * to analysis server i mod (number of analysis servers). Throws
 * Error(ECLUSE_INIT_ERROR) when the node has no rank left for the simulation or the placement
 * does not fit the node (but a Damaris file's mask: `placement_warning`); the message starts
 * with the place of <dedicated> or <placement> that `cores` carries. */
NodePlan plan_dedicated_cores(int node, int local_size, int dedicated_cores,
                              ServerPlacement placement, const CorePlacement& cores = {},
                              const std::vector<ServerRole>& roles = {});

/** The local ranks of the node's dedicated cores, in increasing order (see above). */
std::vector<int> dedicated_core_ranks(int node, int local_size, int dedicated_cores,
                                      ServerPlacement placement, const CorePlacement& cores);

}  // namespace ecluse
