// Which node each rank is on and which role it plays (simulation client or Ecluse server).
#pragma once

#include <mpi.h>

#include <vector>

#include "config/Config.hpp"
#include "topology/NodePlan.hpp"

namespace ecluse {

class Topology {
 public:
  /** Collective over world. Nodes come from MPI_COMM_TYPE_SHARED, or from the virtual-node
   * setting (<virtual-nodes ranks-per-node> or ECLUSE_RANKS_PER_NODE) on one machine. */
  Topology(MPI_Comm world, const Architecture& architecture);
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
  ~Topology();

  [[nodiscard]] Role role() const { return role_; }
  [[nodiscard]] bool is_client() const { return role_ == Role::Client; }
  [[nodiscard]] int world_rank() const { return world_rank_; }
  [[nodiscard]] int node() const { return node_; }
  [[nodiscard]] int node_count() const { return node_count_; }
  [[nodiscard]] int local_rank() const { return local_rank_; }
  [[nodiscard]] int local_size() const { return local_size_; }
  /** Communicator of the simulation ranks (MPI_COMM_NULL on servers). */
  [[nodiscard]] MPI_Comm clients() const { return clients_; }
  /** Communicator of the Ecluse servers (MPI_COMM_NULL on clients and in TP). */
  [[nodiscard]] MPI_Comm servers() const { return servers_; }
  /** Ranks of this rank's node. */
  [[nodiscard]] MPI_Comm node_comm() const { return node_comm_; }
  /** Dedicated cores: the node's plan (roles by local rank, assignment of clients). */
  [[nodiscard]] const NodePlan& plan() const { return plan_; }
  /** Rank in clients() of the node's clients, by client index (dedicated cores). */
  [[nodiscard]] const std::vector<int>& node_client_ranks() const { return node_client_ranks_; }

 private:
  void find_node(MPI_Comm world, int ranks_per_node);
  void split_roles(MPI_Comm world);
  Role role_ = Role::Client;
  int world_rank_ = 0;
  int node_ = 0;
  int node_count_ = 1;
  int local_rank_ = 0;
  int local_size_ = 1;
  NodePlan plan_;
  std::vector<int> node_client_ranks_;
  MPI_Comm node_comm_ = MPI_COMM_NULL;
  MPI_Comm clients_ = MPI_COMM_NULL;
  MPI_Comm servers_ = MPI_COMM_NULL;
};

/** ranks-per-node from ECLUSE_RANKS_PER_NODE if set (> 0), else from the configuration. */
int effective_ranks_per_node(const Architecture& architecture);

}  // namespace ecluse
