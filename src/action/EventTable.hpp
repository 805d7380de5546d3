// Actions of the events declared in <actions>: bound functions or symbols found with dlsym.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "config/Config.hpp"
#include "ecluse/Session.hpp"

namespace ecluse {

class EventTable {
 public:
  explicit EventTable(const Config& config) : config_(config) {}
  ~EventTable();
  EventTable(const EventTable&) = delete;
  EventTable& operator=(const EventTable&) = delete;

  void bind(std::string_view event, Action action);
  /** Runs the action of `event` here (synchronously). */
  void fire(std::string_view event, int source, int iteration);

 private:
  [[nodiscard]] const Event& declared(std::string_view name) const;
  Action resolve(const Event& event);
  const Config& config_;
  std::map<std::string, Action, std::less<>> actions_;
  std::map<std::string, void*> libraries_;
};

}  // namespace ecluse
