// What a rank does in a run: the simulation (a client), a dedicated core or a dedicated node. The
// frequency policies name it, the topology assigns it, the report aggregates by it.
#pragma once

#include <array>
#include <cstddef>

#include "core/EnumNames.hpp"

namespace ecluse {

enum class Role { Client, DedicatedCore, DedicatedNode };

inline constexpr std::size_t kRoleCount = 3;

/** The names of the report and of <frequency role="...">. */
constexpr std::array<EnumName<Role>, kRoleCount> enum_names(Role) {
  return {{{Role::Client, "simulation"},
           {Role::DedicatedCore, "dedicated-core"},
           {Role::DedicatedNode, "dedicated-node"}}};
}

constexpr std::size_t index_of(Role role) {
  return static_cast<std::size_t>(role);
}

inline constexpr std::array<Role, kRoleCount> kRoles = {Role::Client, Role::DedicatedCore,
                                                        Role::DedicatedNode};

}  // namespace ecluse
