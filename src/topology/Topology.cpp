// Node detection (real or virtual) and role assignment.
#include "topology/Topology.hpp"

#include <unistd.h>

#include <cstdlib>
#include <functional>
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

namespace {

// Where the nodes' sizes come from, said after a placement refused for them: an environment
// variable left over from another run is otherwise hard to see.
std::string node_sizes_origin(const Architecture& architecture) {
  const char* env = std::getenv("ECLUSE_RANKS_PER_NODE");
  const std::string file = architecture.ranks_per_node > 0
                               ? "the file's <virtual-nodes ranks-per-node=\"" +
                                     std::to_string(architecture.ranks_per_node) + "\"/>"
                               : "";
  if (env && *env) {
    return "Nodes here have ECLUSE_RANKS_PER_NODE=" + std::string(env) + " ranks" +
           (file.empty() ? "" : ", which overrides " + file) + ".";
  }
  if (!file.empty()) return "Nodes here come from " + file + ".";
  return "Nodes here are the hosts as MPI sees them (the ranks sharing one); <virtual-nodes "
         "ranks-per-node> or ECLUSE_RANKS_PER_NODE emulate several on one host.";
}

}  // namespace

Topology::Topology(MPI_Comm world, const Architecture& architecture) {
  const WaitScope scope("in initialize for the topology (nodes and roles)");
  MPI_Comm_rank(world, &world_rank_);
  find_node(world, effective_ranks_per_node(architecture));
  try {
    if (architecture.dedicated_nodes > 0) plan_nodes(world, architecture);
    if (architecture.dedicated_cores > 0) plan_cores(world, architecture);
  } catch (const Error& e) {
    MPI_Comm_free(&node_comm_);
    throw Error(e.status(), std::string(e.what()) + " " + node_sizes_origin(architecture));
  } catch (...) {
    MPI_Comm_free(&node_comm_);
    throw;
  }
  split_roles(world);
}

void Topology::plan_cores(MPI_Comm world, const Architecture& architecture) {
  run_collectively(world, [&] {
    plan_ = plan_dedicated_cores(node_, local_size_, architecture.dedicated_cores,
                                 architecture.placement, architecture.core_placement,
                                 architecture.roles);
  });
  role_ = plan_.roles[static_cast<std::size_t>(local_rank_)];
}

void Topology::plan_nodes(MPI_Comm world, const Architecture& architecture) {
  int size = 0;
  MPI_Comm_size(world, &size);
  std::vector<int> node_of(static_cast<std::size_t>(size));
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallgather(&node_, 1, MPI_INT, node_of.data(), 1, MPI_INT, world, &request);
  complete(request, world, "MPI_Iallgather");
  run_collectively(world, [&] {
    node_plan_ = plan_dedicated_nodes(node_of, architecture.dedicated_nodes, architecture.placement,
                                      architecture.dedicated_where);
  });
  if (node_plan_.dedicated[static_cast<std::size_t>(node_)]) role_ = Role::DedicatedNode;
  gather_processes(world);
  channel_ = duplicate(world);
}

void Topology::gather_processes(MPI_Comm world) {
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(host, &length);
  ProcessId me{static_cast<long long>(getpid()),
               std::hash<std::string>{}(std::string(host, static_cast<std::size_t>(length)))};
  int size = 0;
  MPI_Comm_size(world, &size);
  processes_.resize(static_cast<std::size_t>(size));
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallgather(&me, sizeof me, MPI_BYTE, processes_.data(), sizeof me, MPI_BYTE, world, &request);
  complete(request, world, "MPI_Iallgather");
}

Topology::~Topology() {
  if (clients_ != MPI_COMM_NULL) MPI_Comm_free(&clients_);
  if (servers_ != MPI_COMM_NULL) MPI_Comm_free(&servers_);
  if (node_comm_ != MPI_COMM_NULL) MPI_Comm_free(&node_comm_);
  if (channel_ != MPI_COMM_NULL) MPI_Comm_free(&channel_);
}

void Topology::split_roles(MPI_Comm world) {
  const MPI_Comm mine = split_bounded(world, is_client() ? 0 : 1, world_rank_);
  (is_client() ? clients_ : servers_) = mine;
  // Every rank of the node learns the clients-communicator rank of the node's clients.
  int client_rank = -1;
  if (is_client()) MPI_Comm_rank(clients_, &client_rank);
  std::vector<int> by_local(static_cast<std::size_t>(local_size_));
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallgather(&client_rank, 1, MPI_INT, by_local.data(), 1, MPI_INT, node_comm_, &request);
  complete(request, node_comm_, "MPI_Iallgather");
  for (int r : by_local) {
    if (r >= 0) node_client_ranks_.push_back(r);
  }
}

void Topology::find_node(MPI_Comm world, int ranks_per_node) {
  if (ranks_per_node > 0) {
    node_ = world_rank_ / ranks_per_node;
    node_comm_ = split_bounded(world, node_, world_rank_);
  } else {
    node_comm_ = split_shared_bounded(world, world_rank_);
  }
  MPI_Comm_rank(node_comm_, &local_rank_);
  MPI_Comm_size(node_comm_, &local_size_);
  const GroupNumber node = number_groups(world, node_comm_);
  node_ = node.index;
  node_count_ = node.count;
}

}  // namespace ecluse
