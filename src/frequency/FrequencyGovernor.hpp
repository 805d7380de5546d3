// Applies the configured frequency policy of this rank's role at phase changes: lowers the
// CPU it runs on when entering a low phase (at most every 100 ms), restores it on leaving.
#pragma once

#include <mpi.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "accounting/Phase.hpp"
#include "config/Config.hpp"
#include "config/FrequencyPolicy.hpp"
#include "core/Log.hpp"
#include "core/Role.hpp"
#include "frequency/FallbackFrequencyController.hpp"

namespace ecluse {

/** What a rank's governor did, for the report. */
struct FrequencyRecord {
  std::string policy;                // "" without a policy for the rank's role
  std::string controller;            // "" when no controller was made
  std::vector<std::string> actions;  // the first and the last 10
};

class FrequencyGovernor {
 public:
  /** `root`: prefix of /sys (tests use a fake tree). Does nothing without a policy for `role`;
   * nor where the rank's cpufreq policy also drives CPUs other ranks of its host may run on
   * (frequency/PolicySharing). Collective over comm when the configuration has any policy. */
  FrequencyGovernor(const EnergyConfig& config, Role role, Log& log, const std::string& root,
                    MPI_Comm comm);
  ~FrequencyGovernor();
  /** A switch of this rank's thread from `from` to `to`; with `background_work` (a server's
   * store thread writing) the rank is storing, whatever its own thread waits for. */
  void on_phase(Phase from, Phase to, bool background_work = false) noexcept;
  /** Puts back every value changed; idempotent. */
  void finish() noexcept;
  /** The policy, the controller and its actions, for the report. */
  [[nodiscard]] FrequencyRecord record() const;

 private:
  void choose_controller(const std::string& root, Role role, MPI_Comm comm);
  [[nodiscard]] bool low(Phase phase) const;
  void lower() noexcept;
  void raise() noexcept;
  std::optional<FrequencyPolicy> policy_;
  std::unique_ptr<FallbackFrequencyController> controller_;
  Log& log_;
  bool lowered_ = false;
  unsigned restores_at_lowering_ = 0;  // FrequencyRestorer::restores() when last lowered
  double last_change_ = -1e9;
};

}  // namespace ecluse
