// Recording instead of doing keeps the run report the same shape with or without permission.
#include "frequency/NullFrequencyController.hpp"

namespace ecluse {

NullFrequencyController::NullFrequencyController(std::string reason) : reason_(std::move(reason)) {}

void NullFrequencyController::apply(const FrequencyTarget& target, const std::vector<int>& cpus) {
  record("would set cpus " + cpu_list(cpus) + " to " + target.to_string());
}

}  // namespace ecluse
