// Phase-driven frequency changes with a minimum interval between lowerings.
#include "frequency/FrequencyGovernor.hpp"

#include <sched.h>

#include "accounting/Accounting.hpp"
#include "frequency/FrequencyRegistry.hpp"

namespace ecluse {

namespace {
constexpr double kMinimumInterval = 0.1;  // seconds between two lowerings

FrequencyRole frequency_role(Role role) {
  switch (role) {
    case Role::DedicatedCore:
      return FrequencyRole::DedicatedCore;
    case Role::DedicatedNode:
      return FrequencyRole::DedicatedNode;
    default:
      return FrequencyRole::Simulation;
  }
}

int current_cpu() {
  const int cpu = sched_getcpu();
  return cpu >= 0 ? cpu : 0;
}
}  // namespace

FrequencyGovernor::FrequencyGovernor(const EnergyConfig& config, Role role, Log& log,
                                     const std::string& root)
    : log_(log) {
  for (const FrequencySetting& s : config.frequency) {
    FrequencyPolicy p = FrequencyPolicy::parse(s.role, s.when, s.target);
    if (p.role != frequency_role(role)) continue;
    policy_ = p;
    policy_text_ = s.role + " when " + s.when + " to " + p.target.to_string();
  }
  if (!policy_) return;
  controller_ = make_frequency_controller(SysfsFiles(root), current_cpu(),
                                          [this](const auto& l) { log_.warning(l); });
  if (policy_->when == FrequencyWhen::Always) lower();
}

FrequencyGovernor::~FrequencyGovernor() {
  finish();
}

bool FrequencyGovernor::low(Phase phase) const {
  switch (policy_->when) {
    case FrequencyWhen::Idle:
      return phase == Phase::Idle || phase == Phase::Wait;
    case FrequencyWhen::Writing:
      return phase == Phase::Write || phase == Phase::Store || phase == Phase::Gather;
    default:
      return true;
  }
}

void FrequencyGovernor::on_phase(Phase, Phase to) noexcept {
  if (!controller_) return;
  if (low(to) && !lowered_ && wall_clock() - last_change_ >= kMinimumInterval) lower();
  if (!low(to) && lowered_) raise();
}

void FrequencyGovernor::lower() noexcept {
  try {
    controller_->apply(policy_->target, {current_cpu()});
    lowered_ = true;
    last_change_ = wall_clock();
  } catch (const std::exception& e) {
    log_.warning(std::string("frequency control stopped: ") + e.what());
    controller_.reset();
  }
}

void FrequencyGovernor::raise() noexcept {
  try {
    controller_->restore();
  } catch (const std::exception& e) {
    log_.warning(std::string("frequency restore failed: ") + e.what());
  }
  lowered_ = false;
}

void FrequencyGovernor::finish() noexcept {
  if (controller_ && lowered_) raise();
}

void FrequencyGovernor::describe(std::map<std::string, std::string>& labels) const {
  if (!policy_) return;
  labels["frequency.policy"] = policy_text_;
  if (!controller_) return;
  labels["frequency.controller"] = controller_->active().describe();
  const auto& actions = controller_->active().actions();
  // The first and the last actions: a long run switches thousands of times.
  for (std::size_t i = 0; i < actions.size(); ++i) {
    if (i < 10 || i + 10 >= actions.size()) {
      labels["frequency.action." + std::to_string(100000 + i)] = actions[i];
    }
  }
  labels["frequency.action_count"] = std::to_string(actions.size());
}

}  // namespace ecluse
