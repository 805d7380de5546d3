// Node detection (real or virtual) and role assignment.
#include "topology/Topology.hpp"

#include <cstdlib>
#include <string>

#include "core/Collective.hpp"
#include "ecluse/Error.hpp"

namespace ecluse {

int effective_ranks_per_node(const Architecture& architecture) {
  const char* env = std::getenv("ECLUSE_RANKS_PER_NODE");
  if (env && *env) {
    char* end = nullptr;
    const long value = std::strtol(env, &end, 10);
    if (*end != '\0' || value <= 0) {
      throw Error(ECLUSE_INIT_ERROR, std::string("ECLUSE_RANKS_PER_NODE='") + env +
                                         "' is not a positive integer; unset it or fix it.");
    }
    return static_cast<int>(value);
  }
  return architecture.ranks_per_node;
}

Topology::Topology(MPI_Comm world, const Architecture& architecture) {
  MPI_Comm_rank(world, &world_rank_);
  find_node(world, effective_ranks_per_node(architecture));
  if (architecture.dedicated_nodes > 0) {
    MPI_Comm_free(&node_comm_);
    throw Error(ECLUSE_INIT_ERROR,
                "dedicated nodes are not available in this version of Ecluse yet; use "
                "<dedicated cores=\"k\"/> (dedicated cores) or cores=\"0\" nodes=\"0\" "
                "(time partitioning).");
  }
  if (architecture.dedicated_cores > 0) {
    try {
      run_collectively(world, [&] {
        plan_ = plan_dedicated_cores(node_, local_size_, architecture.dedicated_cores,
                                     architecture.placement);
      });
    } catch (...) {
      MPI_Comm_free(&node_comm_);
      throw;
    }
    role_ = plan_.roles[static_cast<std::size_t>(local_rank_)];
  }
  split_roles(world);
}

Topology::~Topology() {
  if (clients_ != MPI_COMM_NULL) MPI_Comm_free(&clients_);
  if (servers_ != MPI_COMM_NULL) MPI_Comm_free(&servers_);
  if (node_comm_ != MPI_COMM_NULL) MPI_Comm_free(&node_comm_);
}

void Topology::split_roles(MPI_Comm world) {
  MPI_Comm mine = MPI_COMM_NULL;
  MPI_Comm_split(world, is_client() ? 0 : 1, world_rank_, &mine);
  (is_client() ? clients_ : servers_) = mine;
  // Every rank of the node learns the clients-communicator rank of the node's clients.
  int client_rank = -1;
  if (is_client()) MPI_Comm_rank(clients_, &client_rank);
  std::vector<int> by_local(static_cast<std::size_t>(local_size_));
  MPI_Allgather(&client_rank, 1, MPI_INT, by_local.data(), 1, MPI_INT, node_comm_);
  for (int r : by_local) {
    if (r >= 0) node_client_ranks_.push_back(r);
  }
}

void Topology::find_node(MPI_Comm world, int ranks_per_node) {
  if (ranks_per_node > 0) {
    node_ = world_rank_ / ranks_per_node;
    MPI_Comm_split(world, node_, world_rank_, &node_comm_);
  } else {
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, world_rank_, MPI_INFO_NULL, &node_comm_);
  }
  MPI_Comm_rank(node_comm_, &local_rank_);
  MPI_Comm_size(node_comm_, &local_size_);
  // Number nodes by their lowest world rank: leaders count themselves in order.
  int leader = local_rank_ == 0 ? 1 : 0;
  int before = 0;
  MPI_Exscan(&leader, &before, 1, MPI_INT, MPI_SUM, world);
  if (world_rank_ == 0) before = 0;
  int node = before;
  MPI_Bcast(&node, 1, MPI_INT, 0, node_comm_);
  node_ = node;
  MPI_Allreduce(&leader, &node_count_, 1, MPI_INT, MPI_SUM, world);
}

}  // namespace ecluse
