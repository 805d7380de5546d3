// The phases a rank's time is split into: clients compute, write and wait; servers gather,
// store and idle; everyone sets up (initialize, start, finalize).
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace ecluse {

enum class Phase { Setup, Compute, Write, Wait, Gather, Store, Idle };
inline constexpr std::size_t kPhaseCount = 7;

inline constexpr std::array<std::string_view, kPhaseCount> kPhaseNames = {
    "setup", "compute", "write", "wait", "gather", "store", "idle"};

constexpr std::string_view to_string(Phase phase) {
  return kPhaseNames[static_cast<std::size_t>(phase)];
}

}  // namespace ecluse
