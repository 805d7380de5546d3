// The controller used when frequency cannot or should not be changed: it changes nothing and
// records what it would have done, so the report shows the policy that was not applied.
#pragma once

#include <string>

#include "frequency/FrequencyController.hpp"

namespace ecluse {

class NullFrequencyController final : public FrequencyController {
 public:
  explicit NullFrequencyController(std::string reason);
  [[nodiscard]] std::string describe() const override { return "null (" + reason_ + ")"; }
  void apply(const FrequencyTarget& target, const std::vector<int>& cpus) override;
  void restore() override {}

 private:
  std::string reason_;
};

}  // namespace ecluse
