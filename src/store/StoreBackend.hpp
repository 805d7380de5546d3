// The interface every storage plugin implements, and the description of a block it is given.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/Config.hpp"
#include "core/DataType.hpp"

namespace ecluse {

/** One block of one variable at one iteration, shapes already in C order. */
struct BlockData {
  const Variable* variable = nullptr;
  DataType type = DataType::Float64;
  int iteration = 0;
  int source = 0;  // rank of the client that wrote it, in the clients' communicator
  int block = 0;   // domain id, 0 <= block < domains
  std::vector<std::uint64_t> dims;      // full local extent, ghosts included
  std::vector<std::uint64_t> ghost_lo;  // ghost cells before the interior, per dimension
  std::vector<std::uint64_t> ghost_hi;  // ghost cells after the interior, per dimension
  std::vector<std::uint64_t> global;    // declared global extent; empty when not declared
  std::vector<std::int64_t> position;   // global offset of the first interior element
  const void* data = nullptr;           // dims elements of data_type_size(type) bytes
  /** Interior extent: dims - ghost_lo - ghost_hi. */
  [[nodiscard]] std::vector<std::uint64_t> interior() const;
};

/** What a store instance needs to know about where it runs. */
struct StoreEnv {
  MPI_Comm comm = MPI_COMM_NULL;       // every writer taking part (clients in TP, servers later)
  int writer = 0;                      // this writer's rank in comm
  MPI_Comm node_comm = MPI_COMM_NULL;  // the writers of this writer's node (a subset of comm)
  int node = 0;                        // this writer's node, numbered from 0
  int domains = 1;                     // blocks per client, decides the dataset naming scheme
  std::string simulation;              // <simulation name>
};

/** A storage plugin instance, created once per <store> element. */
class StoreBackend {
 public:
  virtual ~StoreBackend() = default;
  /** Called on every writer of env.comm at the end of each iteration, with the blocks this
   * writer holds for this store (possibly none): collective stores may use MPI on env.comm.
   * Throws ecluse::Error; earlier iterations' files must stay intact. */
  virtual void write_iteration(int iteration, const std::vector<BlockData>& blocks) = 0;
};

/** An option a store type accepts, described as data so that tools can list it. */
struct OptionSpec {
  std::string key;
  std::string description;
  std::string default_value;
  std::vector<std::string> allowed;  // empty: free text
};

/** A store type in the registry; one that was not built stays listed and says why. */
struct StoreKind {
  std::string name;
  std::string description;
  std::vector<OptionSpec> options;
  std::string not_built;  // empty when available, else e.g. "not built with HDF5"
  std::function<std::unique_ptr<StoreBackend>(const Store&, const StoreEnv&)> make;
};

/** Every store type known to this build, built or not. */
const std::vector<StoreKind>& store_kinds();
const StoreKind* find_store_kind(std::string_view name);

/** Value of an option, or its declared default. */
std::string option_or_default(const Store& store, const StoreKind& kind, const std::string& key);

}  // namespace ecluse
