// Applies the configured frequency policy of this rank's role at phase changes: lowers the
// CPU it runs on when entering a low phase (at most every 100 ms), restores it on leaving.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "accounting/Phase.hpp"
#include "config/Config.hpp"
#include "config/FrequencyPolicy.hpp"
#include "core/Log.hpp"
#include "frequency/FallbackFrequencyController.hpp"
#include "topology/NodePlan.hpp"

namespace ecluse {

class FrequencyGovernor {
 public:
  /** `root`: prefix of /sys (tests use a fake tree). Does nothing without a policy for `role`. */
  FrequencyGovernor(const EnergyConfig& config, Role role, Log& log, const std::string& root);
  ~FrequencyGovernor();
  void on_phase(Phase from, Phase to) noexcept;
  /** Puts back every value changed; idempotent. */
  void finish() noexcept;
  /** "frequency.policy", "frequency.controller", "frequency.action.<n>" for the report. */
  void describe(std::map<std::string, std::string>& labels) const;

 private:
  [[nodiscard]] bool low(Phase phase) const;
  void lower() noexcept;
  void raise() noexcept;
  std::optional<FrequencyPolicy> policy_;
  std::string policy_text_;
  std::unique_ptr<FallbackFrequencyController> controller_;
  Log& log_;
  bool lowered_ = false;
  double last_change_ = -1e9;
};

}  // namespace ecluse
