// The enumerations of the configuration, with the names the XML file uses: the reader turns
// names into these values, so no code outside config/ compares configuration strings.
#pragma once

#include <array>

#include "core/EnumNames.hpp"

namespace ecluse {

/** Whose meaning a file follows where Ecluse and Damaris differ, from its namespace: Damaris's
 * (http://damaris.gforge.inria.fr/damaris/model, or https://gitlab.inria.fr/Damaris/damaris) or
 * Ecluse's (its own, or none). */
enum class Dialect { Ecluse, Damaris };

/** Time partitioning, dedicated cores, dedicated nodes. */
enum class Approach { TP, DC, DN };
constexpr std::array<EnumName<Approach>, 3> enum_names(Approach) {
  return {{{Approach::TP, "tp"}, {Approach::DC, "dc"}, {Approach::DN, "dn"}}};
}

enum class Language { C, Cpp, Fortran, Python };
constexpr std::array<EnumName<Language>, 4> enum_names(Language) {
  return {{{Language::C, "c"},
           {Language::Cpp, "cpp"},
           {Language::Fortran, "fortran"},
           {Language::Python, "python"}}};
}

/** <buffer type>: accepted for Damaris compatibility; the buffer is always POSIX shm. */
enum class BufferType { Posix, Sysv };
constexpr std::array<EnumName<BufferType>, 2> enum_names(BufferType) {
  return {{{BufferType::Posix, "posix"}, {BufferType::Sysv, "sysv"}}};
}

/** <buffer copy>: how ecluse_write copies a block into the node's shared buffer. */
enum class BufferCopy { Auto, Cached, Streaming };
constexpr std::array<EnumName<BufferCopy>, 3> enum_names(BufferCopy) {
  return {{{BufferCopy::Auto, "auto"},
           {BufferCopy::Cached, "cached"},
           {BufferCopy::Streaming, "streaming"}}};
}

/** <buffer allocator>: one best-fit heap shared by the node's clients, or a part per client. */
enum class AllocatorKind { General, Partitioned };
constexpr std::array<EnumName<AllocatorKind>, 2> enum_names(AllocatorKind) {
  return {{{AllocatorKind::General, "general"}, {AllocatorKind::Partitioned, "partitioned"}}};
}

/** <buffer policy>: what a write does when the client's share is full. */
enum class FullPolicy { Block, Skip };
constexpr std::array<EnumName<FullPolicy>, 2> enum_names(FullPolicy) {
  return {{{FullPolicy::Block, "block"}, {FullPolicy::Skip, "skip"}}};
}

/** <placement servers>: dedicated cores (nodes) are the last or the first of a node (job). */
enum class ServerPlacement { Last, First };
constexpr std::array<EnumName<ServerPlacement>, 2> enum_names(ServerPlacement) {
  return {{{ServerPlacement::Last, "last"}, {ServerPlacement::First, "first"}}};
}

/** <event execution>: on the server (remote), on the client that signals (local). */
enum class EventExecution { Remote, Local, Coupled };
constexpr std::array<EnumName<EventExecution>, 3> enum_names(EventExecution) {
  return {{{EventExecution::Remote, "remote"},
           {EventExecution::Local, "local"},
           {EventExecution::Coupled, "coupled"}}};
}

/** <event scope>: once per signal (core), once all of a server's clients signalled (group),
 * or on every server (bcast). */
enum class EventScope { Core, Group, Bcast };
constexpr std::array<EnumName<EventScope>, 3> enum_names(EventScope) {
  return {{{EventScope::Core, "core"}, {EventScope::Group, "group"}, {EventScope::Bcast, "bcast"}}};
}

/** <event kind>: run when a client signals it (signal, Damaris's signal_t), or at the end of
 * every N-th iteration with the iteration's blocks (iteration, ecluse/plugin.h). */
enum class EventKind { Signal, Iteration };
constexpr std::array<EnumName<EventKind>, 2> enum_names(EventKind) {
  return {{{EventKind::Signal, "signal"}, {EventKind::Iteration, "iteration"}}};
}

/** <dedicated roles>: what a dedicated core does with its node's blocks: store them, or run the
 * in-situ actions on them (in the shared buffer, after a storing core forwarded them). */
enum class ServerRole { Store, Analysis };
constexpr std::array<EnumName<ServerRole>, 2> enum_names(ServerRole) {
  return {{{ServerRole::Store, "store"}, {ServerRole::Analysis, "analysis"}}};
}

enum class Centering { Zonal, Nodal };
constexpr std::array<EnumName<Centering>, 2> enum_names(Centering) {
  return {{{Centering::Zonal, "zonal"}, {Centering::Nodal, "nodal"}}};
}

/** A <mesh type> (Damaris's list), or a <curve> (last: not a <mesh type>). */
enum class MeshType { Rectilinear, Curvilinear, Unstructured, Point, Csg, Amr, Unknown, Curve };
constexpr std::array<EnumName<MeshType>, 8> enum_names(MeshType) {
  return {{{MeshType::Rectilinear, "rectilinear"},
           {MeshType::Curvilinear, "curvilinear"},
           {MeshType::Unstructured, "unstructured"},
           {MeshType::Point, "point"},
           {MeshType::Csg, "csg"},
           {MeshType::Amr, "amr"},
           {MeshType::Unknown, "unknown"},
           {MeshType::Curve, "curve"}}};
}

}  // namespace ecluse
