// Bounds on configuration input: what a file may hold before Ecluse refuses it with a message
// (documented in docs/reliability.md). They keep a malformed or hostile file from exhausting the
// stack, the memory or the time of a run.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ecluse::limits {

/** Size of a configuration file or string. */
inline constexpr std::size_t kConfigBytes = 16u << 20;
/** Depth of XML elements (<simulation> is 1; groups nest inside <data>). */
inline constexpr std::size_t kElementDepth = 64;
/** Characters of one layout expression (a dimension, a ghost, a global size). */
inline constexpr std::size_t kExpressionLength = 1024;
/** Nesting of parentheses and unary signs in one expression. */
inline constexpr std::size_t kExpressionDepth = 64;
/** Errors listed for one configuration; the rest are counted. */
inline constexpr std::size_t kListedErrors = 100;
/** Bytes of a name (simulation, group, parameter, layout, variable, store, event...). */
inline constexpr std::size_t kNameBytes = 255;
/** Bytes of an event name: it travels in a fixed field of the DC/DN message (block/BlockMessage),
 * so the same limit holds in every approach. */
inline constexpr std::size_t kEventNameBytes = 63;
/** Dimensions of a layout (ECLUSE_MAX_DIMENSIONS, what the API's shape queries return). */
inline constexpr std::size_t kDimensions = 16;
/** Dimensions of a block that goes to dedicated cores or nodes: its description travels in a
 * fixed-size message (block/BlockMessage). */
inline constexpr std::size_t kDedicatedDimensions = 8;
/** Domains (blocks per variable) of one rank: the client keeps state for each, per variable. */
inline constexpr std::int64_t kDomains = 1 << 16;
/** Messages of a node's queue (<queue size>, about 0.5 KiB each in shared memory). */
inline constexpr std::int64_t kQueueMessages = 1 << 20;
/** Longest word "did you mean" compares (longer ones get no suggestion). */
inline constexpr std::size_t kSuggestedWord = 128;

}  // namespace ecluse::limits
