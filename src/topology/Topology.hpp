// Which node each rank is on and which role it plays (simulation client or Ecluse server).
#pragma once

#include <mpi.h>

#include <vector>

#include "config/Config.hpp"
#include "topology/DedicatedNodePlan.hpp"
#include "topology/NodePlan.hpp"

namespace ecluse {

/** Enough to tell whether a peer process is alive when it runs on the same host. */
struct ProcessId {
  long long pid = 0;
  unsigned long long host = 0;  // hash of the host name
  [[nodiscard]] bool same_host_as(const ProcessId& other) const { return host == other.host; }
};

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
  /** Dedicated nodes: the whole run's plan (indexed by rank in world / channel()). */
  [[nodiscard]] const DedicatedNodePlan& node_plan() const { return node_plan_; }
  /** Dedicated nodes: a duplicate of world carrying clients' data to servers (ranks as in
   * world); MPI_COMM_NULL otherwise. */
  [[nodiscard]] MPI_Comm channel() const { return channel_; }
  /** Dedicated nodes: process id of each world rank, and whether it runs on this host. */
  [[nodiscard]] const std::vector<ProcessId>& processes() const { return processes_; }
  /** Rank in clients() of the node's clients, by client index (dedicated cores). */
  [[nodiscard]] const std::vector<int>& node_client_ranks() const { return node_client_ranks_; }

 private:
  void find_node(MPI_Comm world, int ranks_per_node);
  void split_roles(MPI_Comm world);
  void plan_nodes(MPI_Comm world, const Architecture& architecture);
  void plan_cores(MPI_Comm world, const Architecture& architecture);
  void gather_processes(MPI_Comm world);
  Role role_ = Role::Client;
  int world_rank_ = 0;
  int node_ = 0;
  int node_count_ = 1;
  int local_rank_ = 0;
  int local_size_ = 1;
  NodePlan plan_;
  DedicatedNodePlan node_plan_;
  std::vector<ProcessId> processes_;
  MPI_Comm channel_ = MPI_COMM_NULL;
  std::vector<int> node_client_ranks_;
  MPI_Comm node_comm_ = MPI_COMM_NULL;
  MPI_Comm clients_ = MPI_COMM_NULL;
  MPI_Comm servers_ = MPI_COMM_NULL;
};

/** ranks-per-node from ECLUSE_RANKS_PER_NODE if set (> 0), else from the configuration. */
int effective_ranks_per_node(const Architecture& architecture);

}  // namespace ecluse
