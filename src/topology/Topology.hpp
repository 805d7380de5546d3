// Which node each rank is on and which role it plays (simulation client or Ecluse server).
#pragma once

#include <mpi.h>

#include "config/Config.hpp"

namespace ecluse {

enum class Role { Client, DedicatedCore, DedicatedNode };

class Topology {
 public:
  /** Collective over world. Nodes come from MPI_COMM_TYPE_SHARED, or from the virtual-node
   * setting (<virtual-nodes ranks-per-node> or ECLUSE_RANKS_PER_NODE) on one machine. */
  Topology(MPI_Comm world, const Architecture& architecture);
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
  ~Topology();

  [[nodiscard]] Role role() const { return role_; }
  [[nodiscard]] int world_rank() const { return world_rank_; }
  [[nodiscard]] int node() const { return node_; }
  [[nodiscard]] int node_count() const { return node_count_; }
  [[nodiscard]] int local_rank() const { return local_rank_; }
  [[nodiscard]] int local_size() const { return local_size_; }
  /** Communicator of the simulation ranks (MPI_COMM_NULL on servers). */
  [[nodiscard]] MPI_Comm clients() const { return clients_; }
  /** Ranks of this rank's node. */
  [[nodiscard]] MPI_Comm node_comm() const { return node_comm_; }

 private:
  void find_node(MPI_Comm world, int ranks_per_node);
  Role role_ = Role::Client;
  int world_rank_ = 0;
  int node_ = 0;
  int node_count_ = 1;
  int local_rank_ = 0;
  int local_size_ = 1;
  MPI_Comm node_comm_ = MPI_COMM_NULL;
  MPI_Comm clients_ = MPI_COMM_NULL;
};

/** ranks-per-node from ECLUSE_RANKS_PER_NODE if set (> 0), else from the configuration. */
int effective_ranks_per_node(const Architecture& architecture);

}  // namespace ecluse
