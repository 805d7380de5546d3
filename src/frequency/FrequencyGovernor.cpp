// Phase-driven frequency changes with a minimum interval between lowerings.
#include "frequency/FrequencyGovernor.hpp"

#include <sched.h>

#include <limits>

#include "accounting/Accounting.hpp"
#include "core/Collective.hpp"
#include "frequency/FrequencyRegistry.hpp"
#include "frequency/FrequencyRestorer.hpp"
#include "frequency/PolicySharing.hpp"

namespace ecluse {

namespace {
constexpr double kMinimumInterval = 0.1;  // seconds between two lowerings

int current_cpu() {
  const int cpu = sched_getcpu();
  return cpu >= 0 ? cpu : 0;
}
}  // namespace

FrequencyGovernor::FrequencyGovernor(const EnergyConfig& config, Role role, Log& log,
                                     const std::string& root, MPI_Comm comm)
    : log_(log) {
  for (const FrequencySetting& s : config.frequency) {
    if (s.policy.role == role) policy_ = s.policy;
  }
  // Every rank reads the same configuration: all take part in the exchange or none does.
  if (config.frequency.empty()) return;
  choose_controller(root, role, comm);
  if (policy_ && policy_->when == FrequencyWhen::Always) lower();
}

void FrequencyGovernor::choose_controller(const std::string& root, Role role, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const SysfsFiles files(root);
  const std::vector<CpuClaim> host =
      host_claims(comm, claim_of_this_rank(files, rank, role, policy_.has_value()));
  std::optional<std::string> conflict;
  for (std::size_t me = 0; me < host.size(); ++me) {
    if (host[me].rank == rank) conflict = policy_conflict(host, me);
  }
  // One line for the run, by the first rank concerned (thousands of nodes would each say it);
  // every rank's reason is in the run report (frequency.controllers).
  const int first = allreduce_int(comm, conflict ? rank : std::numeric_limits<int>::max(), MPI_MIN);
  const int count = allreduce_int(comm, conflict ? 1 : 0, MPI_SUM);
  if (!policy_) return;
  const auto report = [this](const std::string& line) { log_.warning(line); };
  if (!conflict) {
    controller_ = make_frequency_controller(files, current_cpu(), report);
    return;
  }
  const std::string others =
      count > 1 ? "; the same holds for " + std::to_string(count - 1) +
                      " other rank(s) (the run report's frequency.controllers lists each with "
                      "its CPUs)"
                : "";
  controller_ = unusable_frequency_controller(
      *conflict + others, [report, said = rank == first](const std::string& line) {
        if (said) report(line);
      });
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

void FrequencyGovernor::on_phase(Phase, Phase now, bool background_work) noexcept {
  if (!controller_) return;
  // A signal handler put the values back since (a fault the program recovered from): the CPU
  // runs at its own frequency again, so the next low phase lowers it again.
  if (lowered_ && FrequencyRestorer::instance().restores() != restores_at_lowering_) {
    lowered_ = false;
  }
  const Phase to = background_work ? Phase::Store : now;
  if (low(to) && !lowered_ && wall_clock() - last_change_ >= kMinimumInterval) lower();
  if (!low(to) && lowered_) raise();
}

void FrequencyGovernor::lower() noexcept {
  try {
    controller_->apply(policy_->target, {current_cpu()});
    restores_at_lowering_ = FrequencyRestorer::instance().restores();
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

FrequencyRecord FrequencyGovernor::record() const {
  FrequencyRecord r;
  if (!policy_) return r;
  r.policy = policy_->describe();
  if (!controller_) return r;
  r.controller = controller_->active().describe();
  const auto& actions = controller_->active().actions();
  // The first and the last actions: a long run switches thousands of times.
  for (std::size_t i = 0; i < actions.size(); ++i) {
    if (i < 10 || i + 10 >= actions.size()) r.actions.push_back(actions[i]);
  }
  return r;
}

}  // namespace ecluse
