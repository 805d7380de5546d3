// A real controller that gives way to the null controller the first time it is refused
// (no permission, no support): one line is reported, what it changed is put back, the run goes on.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "frequency/FrequencyController.hpp"
#include "frequency/NullFrequencyController.hpp"

namespace ecluse {

class FallbackFrequencyController final : public FrequencyController {
 public:
  using Report = std::function<void(const std::string& line)>;

  FallbackFrequencyController(std::unique_ptr<FrequencyController> real, Report report);
  [[nodiscard]] std::string describe() const override;
  void apply(const FrequencyTarget& target, const std::vector<int>& cpus) override;
  void restore() override;
  [[nodiscard]] bool degraded() const noexcept { return null_ != nullptr; }
  /** The controller in use now: the real one, or the null one after a refusal. */
  [[nodiscard]] const FrequencyController& active() const;

  /** Restores what the real controller changed, reports the line, switches to null. */
  void degrade(const std::string& message);
  /** Writes "ecluse: <line>" to stderr. */
  static void report_to_stderr(const std::string& line);

 private:
  std::unique_ptr<FrequencyController> real_;
  std::unique_ptr<NullFrequencyController> null_;
  Report report_;
};

}  // namespace ecluse
