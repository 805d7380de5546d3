// Role assignment inside a node for dedicated cores.
#include "topology/NodePlan.hpp"

#include <algorithm>

#include "ecluse/Error.hpp"

namespace ecluse {
namespace {

void check_room(int node, int local_size, int k, const CorePlacement& cores) {
  if (local_size <= k) {
    throw Error(ECLUSE_INIT_ERROR,
                place_prefix(cores.dedicated_where) + "node " + std::to_string(node) + " has " +
                    std::to_string(local_size) + " rank(s) but <dedicated cores=\"" +
                    std::to_string(k) + "\"/> leaves none for the simulation; run at least " +
                    std::to_string(2 * k) +
                    " ranks per node (every dedicated core needs a client) or lower the number "
                    "of dedicated cores.");
  }
  if (local_size - k < k) {
    throw Error(ECLUSE_INIT_ERROR,
                place_prefix(cores.dedicated_where) + "node " + std::to_string(node) + " has " +
                    std::to_string(local_size - k) + " simulation rank(s) for " +
                    std::to_string(k) +
                    " dedicated cores; every dedicated core needs at least one client: run at "
                    "least " +
                    std::to_string(2 * k) +
                    " ranks per node or lower the number of "
                    "dedicated cores.");
  }
}

/** The fewest ranks per node on which the mask, repeated, marks k ranks and leaves each a
 * client. The mask has a 1 (the reader refuses one without). */
int ranks_for_mask(int k, const std::string& mask) {
  int marked = 0;
  int n = 0;
  while (marked < k || n < 2 * k) {
    if (mask[static_cast<std::size_t>(n) % mask.size()] == '1') ++marked;
    ++n;
  }
  return n;
}

std::vector<int> last_ranks(int local_size, int k, ServerPlacement placement) {
  const int first = placement == ServerPlacement::First ? 0 : local_size - k;
  std::vector<int> ranks;
  for (int i = 0; i < k; ++i) ranks.push_back(first + i);
  return ranks;
}

// The mask is repeated over the node; its first k ones are the dedicated cores. A Damaris
// file's mask that does not fit gives way to Damaris's placement (`warning` says so).
std::vector<int> masked_ranks(int node, int local_size, int k, const CorePlacement& cores,
                              std::string& warning) {
  const std::string& mask = cores.mask;
  std::vector<int> ranks;
  for (int local = 0; local < local_size && static_cast<int>(ranks.size()) < k; ++local) {
    if (mask[static_cast<std::size_t>(local) % mask.size()] == '1') ranks.push_back(local);
  }
  if (static_cast<int>(ranks.size()) == k) return ranks;
  const std::string what = place_prefix(cores.where) + "node " + std::to_string(node) +
                           ": <placement mask=\"" + mask + "\"> marks " +
                           std::to_string(ranks.size()) + " of its " + std::to_string(local_size) +
                           " ranks as dedicated cores, but <dedicated cores=\"" +
                           std::to_string(k) + "\"/> needs " + std::to_string(k);
  if (!cores.mask_may_yield) {
    throw Error(ECLUSE_INIT_ERROR, what + "; put a 1 for each dedicated core.");
  }
  warning = what + ". Damaris 1.x ignores the mask, so its placement is used: the last " +
            std::to_string(k) + " local ranks (" + std::to_string(local_size - k) + "-" +
            std::to_string(local_size - 1) + ") are the dedicated cores. Nodes of at least " +
            std::to_string(ranks_for_mask(k, mask)) +
            " ranks would satisfy the mask; remove mask= to keep Damaris's placement silently.";
  return last_ranks(local_size, k, ServerPlacement::Last);
}

std::string pattern_text(const CorePlacement& p) {
  return "<placement start=\"" + std::to_string(p.start) + "\" step=\"" + std::to_string(p.step) +
         "\" blocksize=\"" + std::to_string(p.blocksize) + "\">";
}

// Blocks of `blocksize` ranks, the first at `start`, each `step` ranks after the previous.
std::vector<int> pattern_ranks(int node, int local_size, int k, const CorePlacement& p) {
  const int blocksize = p.blocksize > 0 ? p.blocksize : k;
  const int step = p.step > 0 ? p.step : blocksize;
  if (step < blocksize && k > blocksize) {
    throw Error(ECLUSE_INIT_ERROR, place_prefix(p.where) + pattern_text(p) +
                                       " makes blocks of dedicated cores overlap; give a step of "
                                       "at least the blocksize.");
  }
  std::vector<int> ranks;
  for (int i = 0; i < k; ++i) {
    const long long local = p.start + static_cast<long long>(i / blocksize) * step + i % blocksize;
    if (local >= local_size) {
      throw Error(ECLUSE_INIT_ERROR, place_prefix(p.where) + "node " + std::to_string(node) +
                                         " has " + std::to_string(local_size) + " ranks but " +
                                         pattern_text(p) + " puts dedicated core " +
                                         std::to_string(i + 1) + " of " + std::to_string(k) +
                                         " at local rank " + std::to_string(local) +
                                         "; run more ranks per node or change the placement.");
    }
    ranks.push_back(static_cast<int>(local));
  }
  return ranks;
}

}  // namespace

namespace {

std::vector<int> core_ranks(int node, int local_size, int k, ServerPlacement placement,
                            const CorePlacement& cores, std::string& warning) {
  check_room(node, local_size, k, cores);
  if (!cores.mask.empty()) return masked_ranks(node, local_size, k, cores, warning);
  if (cores.pattern) return pattern_ranks(node, local_size, k, cores);
  return last_ranks(local_size, k, placement);
}

}  // namespace

std::vector<int> dedicated_core_ranks(int node, int local_size, int k, ServerPlacement placement,
                                      const CorePlacement& cores) {
  std::string warning;
  return core_ranks(node, local_size, k, placement, cores, warning);
}

std::vector<int> NodePlan::clients_of(int index) const {
  std::vector<int> mine;
  for (std::size_t local = 0; local < roles.size(); ++local) {
    if (roles[local] != Role::Client) continue;
    const int server = server_index[local];
    if (server == index || forward_to[static_cast<std::size_t>(server)] == index) {
      mine.push_back(client_index[local]);
    }
  }
  return mine;
}

namespace {

// Storing servers take the clients; analysis servers are fed by the storing ones.
void assign_roles(NodePlan& plan, const std::vector<ServerRole>& roles, std::vector<int>& storers) {
  std::vector<int> analysts;
  plan.server_roles.assign(static_cast<std::size_t>(plan.servers), ServerRole::Store);
  plan.forward_to.assign(static_cast<std::size_t>(plan.servers), -1);
  for (int i = 0; i < plan.servers; ++i) {
    if (!roles.empty())
      plan.server_roles[static_cast<std::size_t>(i)] = roles[static_cast<std::size_t>(i)];
    (plan.server_roles[static_cast<std::size_t>(i)] == ServerRole::Store ? storers : analysts)
        .push_back(i);
  }
  for (std::size_t i = 0; i < storers.size() && !analysts.empty(); ++i) {
    plan.forward_to[static_cast<std::size_t>(storers[i])] = analysts[i % analysts.size()];
  }
}

}  // namespace

NodePlan plan_dedicated_cores(int node, int local_size, int dedicated_cores,
                              ServerPlacement placement, const CorePlacement& cores,
                              const std::vector<ServerRole>& roles) {
  const int k = dedicated_cores;
  NodePlan plan;
  const std::vector<int> servers =
      core_ranks(node, local_size, k, placement, cores, plan.placement_warning);
  plan.servers = k;
  plan.clients = local_size - k;
  std::vector<int> storers;
  assign_roles(plan, roles, storers);
  const auto s = static_cast<int>(storers.size());
  int next_client = 0;
  for (int local = 0; local < local_size; ++local) {
    const auto found = std::find(servers.begin(), servers.end(), local);
    const bool server = found != servers.end();
    plan.roles.push_back(server ? Role::DedicatedCore : Role::Client);
    plan.client_index.push_back(server ? -1 : next_client);
    // Contiguous groups: client c goes to storing server floor(c * s / clients).
    plan.server_index.push_back(
        server ? static_cast<int>(found - servers.begin())
               : storers[static_cast<std::size_t>(next_client * s / plan.clients)]);
    if (!server) ++next_client;
  }
  return plan;
}

}  // namespace ecluse
