// Node detection (real or virtual) and role assignment.
#include "topology/Topology.hpp"

#include <cstdlib>
#include <string>

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
  if (architecture.dedicated_cores > 0 || architecture.dedicated_nodes > 0) {
    MPI_Comm_free(&node_comm_);
    throw Error(ECLUSE_INIT_ERROR,
                "dedicated cores and dedicated nodes are not available in this version of "
                "Ecluse yet; use <dedicated cores=\"0\" nodes=\"0\"/> (time partitioning).");
  }
  MPI_Comm_dup(world, &clients_);
}

Topology::~Topology() {
  if (clients_ != MPI_COMM_NULL) MPI_Comm_free(&clients_);
  if (node_comm_ != MPI_COMM_NULL) MPI_Comm_free(&node_comm_);
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
