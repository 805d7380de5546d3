// One block of one variable at one iteration: what a client writes, a transport carries and a
// store receives.
#pragma once

#include <cstdint>
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

}  // namespace ecluse
