// Degrading restores first: a refusal on the third CPU must not leave the first two lowered.
#include "frequency/FallbackFrequencyController.hpp"

#include <iostream>

namespace ecluse {

FallbackFrequencyController::FallbackFrequencyController(std::unique_ptr<FrequencyController> real,
                                                         Report report)
    : real_(std::move(real)), report_(report ? std::move(report) : report_to_stderr) {}

std::string FallbackFrequencyController::describe() const {
  return active().describe();
}

const FrequencyController& FallbackFrequencyController::active() const {
  return null_ ? static_cast<const FrequencyController&>(*null_) : *real_;
}

void FallbackFrequencyController::apply(const FrequencyTarget& target,
                                        const std::vector<int>& cpus) {
  if (!null_) {
    const std::size_t done = real_->actions().size();
    try {
      real_->apply(target, cpus);
      for (std::size_t i = done; i < real_->actions().size(); ++i) record(real_->actions()[i]);
      return;
    } catch (const FrequencyUnavailable& e) {
      degrade(e.what());
    }
  }
  null_->apply(target, cpus);
  record(null_->actions().back());
}

void FallbackFrequencyController::degrade(const std::string& message) {
  try {
    real_->restore();
  } catch (const Error& e) {
    report_(e.what());
  }
  report_(message);
  null_ = std::make_unique<NullFrequencyController>(message);
}

void FallbackFrequencyController::restore() {
  if (!null_) real_->restore();
}

void FallbackFrequencyController::report_to_stderr(const std::string& line) {
  std::cerr << "ecluse: " << line << std::endl;
}

}  // namespace ecluse
